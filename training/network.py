"""The new-piece network: a tiny U-Net over the region pair (needs torch: training only).

Three halvings give each output pixel a view of about eight studs around it, enough to
tell a new piece from its own shadow beside it; the skips keep the full-size edges, so
the mask follows the piece's outline. Channels are few (12 to 32) so that one CPU core
runs a 420x520 region in a few tens of milliseconds.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.new_pieces import CHANNELS

WIDTHS = (12, 16, 24, 32)


def _block(cin: int, cout: int, convs: int = 2, stride: int = 1) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(convs):
        layers += [nn.Conv2d(cin if i == 0 else cout, cout, 3, padding=1,
                             stride=stride if i == 0 else 1, bias=False),
                   nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    return nn.Sequential(*layers)


class NewPieceNet(nn.Module):
    """Region pair (CHANNELS, H, W), H and W multiples of 8, to the logit per pixel that a
    new piece shows there; with ``height_map``, a second map: the height (brick levels
    above the plate) of the surface the pixel shows, meaningful only where the first
    says new.

    The network works at half the region's size (a stud is still four to five pixels
    there) and the maps are brought back up bilinearly: a quarter of the work. The height
    has its own small branch (one 3x3 layer) off the last features, so the new-piece map
    keeps what it had. ``extra_channels`` are inputs behind the pair's (full mode's
    geometry, :func:`vision.surface.geometry_channels`); the reader tells them by the
    ONNX input's channel count.
    """

    def __init__(self, widths: tuple[int, int, int, int] = WIDTHS,
                 height_map: bool = False, extra_channels: int = 0) -> None:
        super().__init__()
        w0, w1, w2, w3 = widths
        self.channels = CHANNELS + extra_channels
        self.stem = _block(self.channels, w0, 1, stride=2)
        self.enc1 = _block(w0, w1, 1)
        self.enc2 = _block(w1, w2)
        self.enc3 = _block(w2, w3)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec2 = _block(w3 + w2, w2, 1)
        self.dec1 = _block(w2 + w1, w0, 1)
        self.head = nn.Conv2d(w0, 1, 1)
        self.height = (nn.Sequential(_block(w0, w0, 1), nn.Conv2d(w0, 1, 1))
                       if height_map else None)
        self.full = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(self.stem(x))
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up(e3), e2], 1))
        d1 = self.dec1(torch.cat([self.up(d2), e1], 1))
        if self.height is None:
            return self.full(self.head(d1))
        return self.full(torch.cat([self.head(d1), self.height(d1)], 1))


def export_onnx(net: NewPieceNet, path: str) -> None:
    """Write ``net`` (in eval mode, batch norm folded by the exporter) with free H and W;
    the output "logit" has one channel per map."""
    net.eval()
    sample = torch.zeros(1, net.channels, 64, 64)
    torch.onnx.export(net, (sample,), path, dynamo=False, input_names=["pair"],
                      output_names=["logit"], opset_version=17,
                      dynamic_axes={"pair": {0: "n", 2: "h", 3: "w"},
                                    "logit": {0: "n", 2: "h", 3: "w"}})
