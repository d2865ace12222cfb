"""Frame sources: a folder of pictures and a video file, in order with their times; bad
sources are one-line errors (exit 2 from `palace watch`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.image_file import ImageFileError
from palace.cli import main
from vision.capture import CaptureError, FolderSource, VideoSource, open_source


def _picture(value: int) -> np.ndarray:
    image = np.zeros((72, 96, 3), np.uint8)
    image[:, :, 1] = value
    image[10:20, value % 40:value % 40 + 8] = 255
    return image


def test_a_folder_is_read_in_name_order_at_its_rate(tmp_path):
    for k in (3, 1, 2, 10):
        cv2.imwrite(str(tmp_path / f"frame_{k:03d}.png"), _picture(20 * k))
    (tmp_path / "notes.txt").write_text("not a picture")
    frames = list(FolderSource(tmp_path, fps=5.0))
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.time for f in frames] == pytest.approx([0.0, 0.2, 0.4, 0.6])
    assert [int(f.image[0, 0, 1]) for f in frames] == [20, 40, 60, 200]
    assert all(f.image.shape == (72, 96, 3) and f.image.dtype == np.uint8 for f in frames)


def test_a_video_gives_its_frames_on_its_own_clock(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 4.0, (96, 72))
    assert writer.isOpened()
    for k in range(6):
        writer.write(_picture(40 * k))
    writer.release()
    with open_source(video=str(path)) as source:
        assert isinstance(source, VideoSource)
        frames = list(source)
    assert len(frames) == 6
    assert [f.time for f in frames] == pytest.approx([k / 4.0 for k in range(6)])
    greens = [int(np.median(f.image[30:, :, 1])) for f in frames]
    assert greens == sorted(greens) and greens[-1] > greens[0] + 150


def test_bad_sources_say_what_is_wrong(tmp_path):
    with pytest.raises(CaptureError, match="no such folder"):
        FolderSource(tmp_path / "missing")
    with pytest.raises(CaptureError, match="no pictures"):
        FolderSource(tmp_path)
    (tmp_path / "broken.png").write_bytes(b"not a png")
    with pytest.raises(ImageFileError, match=r"broken\.png: not a PNG or JPEG"):
        list(FolderSource(tmp_path))
    with pytest.raises(CaptureError, match="no such file"):
        open_source(video=str(tmp_path / "missing.mp4"))
    (tmp_path / "fake.mp4").write_bytes(b"\0" * 100)
    with pytest.raises(CaptureError, match=r"fake\.mp4"):
        list(open_source(video=str(tmp_path / "fake.mp4")))
    with pytest.raises(CaptureError, match="exactly one source"):
        open_source(video="a", frames="b")


@pytest.mark.parametrize("args, expected", [
    (["--video", "{tmp}/missing.mp4"], "missing.mp4: no such file"),
    (["--frames", "{tmp}/nowhere"], "nowhere: no such folder"),
    (["--camera", "57"], "camera 57: no such camera"),
    (["--frames", "{tmp}", "--port", "0"], "--port: must be 1..65535"),
    (["--frames", "{tmp}", "--second-intrinsics", "{tmp}/c.json"],
     "--second-intrinsics: only with --second"),
])
def test_watch_refuses_bad_input_in_one_line(tmp_path, capsys, args, expected):
    argv = ["watch", *[a.format(tmp=tmp_path) for a in args], "--db", str(tmp_path / "g.db")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert len(err.strip().splitlines()) == 1


def test_watch_refuses_a_second_webcam_it_cannot_read_in_one_line(tmp_path, capsys):
    first = tmp_path / "first"
    first.mkdir()
    cv2.imwrite(str(first / "0000.png"), _picture(0))
    argv = ["watch", "--frames", str(first), "--second", str(tmp_path / "nowhere"), "--exit",
            "--db", str(tmp_path / "g.db")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "nowhere: no such folder" in err and len(err.strip().splitlines()) == 1


def test_a_live_source_hands_over_the_newest_frame(tmp_path):
    """A camera's reader thread keeps only the latest picture: a slow loop skips frames
    instead of falling behind. A video file stands in for the device here."""
    import time

    from vision.capture import CameraSource

    path = tmp_path / "live.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (96, 72))
    for k in range(200):
        writer.write(_picture(k))
    writer.release()
    source = CameraSource(str(path))
    seen = []
    try:
        for frame in source:
            seen.append(frame)
            time.sleep(0.02)  # a loop slower than the device
    finally:
        source.close()
    times = [f.time for f in seen]
    assert 1 <= len(seen) < 200
    assert times == sorted(times) and len(set(times)) == len(times)
    assert [f.index for f in seen] == list(range(len(seen)))
