"""`palace schemas [--out docs/schemas]`: the JSON Schema of every file format, generated.

The schemas are published in the repository so that other tools can check a scene or a
camera file before sending it; they are generated from the same pydantic models that
read the files, and a test fails when the committed copies fall behind the models.
A new format is one line in :data:`SCHEMAS`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pydantic import BaseModel

from calibration.formats import CameraModel, PoseModel, ProfileModel
from palace.output_path import output_folder
from rules.formats import MapModel, SceneModel
from rules.monopoly_builder.state import State as MonopolyBuilderState

SCHEMAS: tuple[tuple[str, type[BaseModel]], ...] = (
    ("palace-scene-1", SceneModel),
    ("palace-map-1", MapModel),
    ("camera", CameraModel),
    ("pose", PoseModel),
    ("palace-profile-1", ProfileModel),
    ("monopoly-builder-state-1", MonopolyBuilderState),
)
"""File stem in docs/schemas and the model; one entry per format."""


def schema_texts() -> dict[str, str]:
    """File name -> the schema as written (stable key order, a final newline)."""
    texts: dict[str, str] = {}
    for stem, model in SCHEMAS:
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{stem}.schema.json",
            **model.model_json_schema(),
        }
        texts[f"{stem}.schema.json"] = json.dumps(schema, indent=1, sort_keys=True) + "\n"
    return texts


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schemas",
        help="write the JSON Schema of every file format",
        description="Write the JSON Schemas of the scene, map, camera, pose, profile and "
        "Monopoly Builder state files (generated from the models that read them).",
    )
    parser.add_argument("--out", default="docs/schemas",
                        help="folder to write into (default docs/schemas)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    folder = output_folder(args.out, "--out")
    folder.mkdir(exist_ok=True)
    for name, text in schema_texts().items():
        (folder / name).write_text(text, encoding="utf-8")
        print(f"wrote {folder / name}")
    return 0
