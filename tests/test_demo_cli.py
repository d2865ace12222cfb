"""`palace demo`: the simulated table through the real pipeline, and its bad input."""

from __future__ import annotations

import socket

from palace.cli import main


def test_a_headless_demo_plays_a_turn_and_sums_up(tmp_path, capsys):
    db = tmp_path / "demo.sqlite"
    code = main(["demo", "--headless-check", "--turns", "1", "--seed", "3", "--db", str(db)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "no web server" in out
    assert "camera loop:" in out and "1 reads" in out
    assert "players: 1 turns built" in out
    # The turn is in the game log, whoever (camera or page) got it right.
    assert db.is_file() and db.stat().st_size > 0
    assert "scores:" in out


def test_a_demo_with_a_second_webcam_reads_its_view_with_the_first(tmp_path, capsys):
    code = main(["demo", "--headless-check", "--turns", "1", "--seed", "3", "--second-webcam",
                 "--db", str(tmp_path / "demo.sqlite")])
    out = capsys.readouterr().out
    assert code == 0, out
    line = next(x for x in out.splitlines() if x.startswith("second webcam:"))
    found, frames = (int(w) for w in line.split("found in ")[1].split(" frames")[0].split(" of "))
    assert frames > 0 and found >= 0.9 * frames, line
    assert "its view read with 1 of 1 reads" in line


def test_demo_refuses_bad_input_in_one_line(tmp_path, capsys):
    assert main(["demo", "--turns", "0", "--headless-check"]) == 2
    assert "--turns: must be at least 1" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["demo", "--turns", "1", "--exit", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"--port {port}: cannot serve there" in err and len(err.strip().splitlines()) == 1


def test_watch_reads_a_recorded_turn_from_a_folder(tmp_path, capsys):
    import cv2

    from palace.session import TableSession
    from twin.table import SimulatedTable
    from twin.table_settings import TableSettings

    settings = TableSettings(width=960, height=540, still_s=1.2, setup_s=1.2)
    table = SimulatedTable(seed=3, turns=1, settings=settings)
    frames = tmp_path / "frames"
    frames.mkdir()
    for frame in table:
        cv2.imwrite(str(frames / f"{frame.index:04d}.png"), frame.image)
    table.camera.save(tmp_path / "camera.json")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    db = tmp_path / "watch.sqlite"
    code = main(["watch", "--frames", str(frames), "--intrinsics", str(tmp_path / "camera.json"),
                 "--db", str(db), "--port", str(port), "--exit"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"the dashboard is at http://127.0.0.1:{port}" in out
    assert "1 turns read" in out
    # The camera's reading waits in the log as the turn being read, for the players.
    session = TableSession.open(db, resume=True)
    try:
        assert session.draft is not None and session.draft.source == "camera"
    finally:
        session.close()
