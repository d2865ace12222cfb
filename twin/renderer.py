"""``render``: a scene as a webcam would see it, with exact labels beside the picture.

Order of work: the pieces (and clutter) go into a z-buffer as polygons; the board is
shaded per pixel and wins wherever it is nearer; the table fills the rest; then the
lens distorts the pinhole image and the webcam pipeline develops it.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from calibration.camera import Camera, Pose
from rules.maps import GroundMap, load_map
from rules.palace import Palace
from rules.pieces import BOARD_MM, BRICK_MM, STUD_MM, Kind, Piece, missing_corners
from rules.scene import Scene
from twin import board as board_layer
from twin import polygons, raster
from twin.card_print import TEXTURE_PX_PER_MM, card_texture
from twin.clutter import CLUTTER, TABLE_Z, corner_cover, table_clutter
from twin.composite import composite
from twin.deep_shadows import DeepShadows, deepen_contact, ground_occlusion
from twin.frame import Frame, RenderOptions
from twin.geometry import Geometry, piece_geometry
from twin.lens import Lens, lens_for
from twin.mesh import KIND_BACKGROUND, KIND_BOARD, PART_BODY, Mesh
from twin.piece_light import PieceLight, shade_pieces
from twin.realism import (
    TABLE_MM_PER_PX,
    TABLE_PX,
    Camera8Bit,
    auto_gain,
    finish,
    meter,
    random_pipeline,
    table_texture,
)
from twin.seams import SeamLook, draw_seams
from twin.shading import Light, piece_color, player_shadow, room_fill, shade_polygons
from twin.wide import WideLook, hard_light, stud_shadow_mask

MAX_PIXELS = 3840 * 2160
"""The largest frame the renderer is asked for: a 4K webcam. Its buffers take about 60
MB a megapixel, so this keeps a render near half a gigabyte."""
CLEAN_LIGHT = Light(azimuth_deg=35.0, elevation_deg=60.0, ambient=0.5, diffuse=0.55,
                    specular=0.2, shininess=40.0, shadow=0.5, softness_mm=1.5)


def _resolve(scene: Scene | Palace) -> tuple[Scene, tuple[Piece, ...], GroundMap]:
    if isinstance(scene, Palace):
        pieces = scene.pieces
        ground = scene.ground
        as_scene = Scene(map=ground.name, pieces=pieces)
    else:
        as_scene = scene
        pieces = scene.pieces
        ground = load_map(scene.map)
    return as_scene, (*pieces, *missing_corners(pieces)), ground


def _plate_edges(mesh: Mesh, color: np.ndarray) -> None:
    """The baseplate's rim between the table and the board frame's z = 0."""
    b, z0 = BOARD_MM, TABLE_Z
    sides = (
        ([(0, 0, z0), (b, 0, z0), (b, 0, 0), (0, 0, 0)], (0, -1, 0)),
        ([(b, 0, z0), (b, b, z0), (b, b, 0), (b, 0, 0)], (1, 0, 0)),
        ([(b, b, z0), (0, b, z0), (0, b, 0), (b, b, 0)], (0, 1, 0)),
        ([(0, b, z0), (0, 0, z0), (0, 0, 0), (0, b, 0)], (-1, 0, 0)),
    )
    for verts, normal in sides:
        mesh.add(np.array(verts, float), np.array(normal, float), color, -1, KIND_BOARD,
                 PART_BODY, 0.5)


def _table_layer(lens: Lens, rotation: np.ndarray, tvec: np.ndarray,
                 texture: np.ndarray) -> np.ndarray:
    """The table plane through its homography (texture pixel -> pinhole pixel)."""
    half = TABLE_PX * TABLE_MM_PER_PX / 2
    tex_to_board = np.array([
        [TABLE_MM_PER_PX, 0, BOARD_MM / 2 - half],
        [0, TABLE_MM_PER_PX, BOARD_MM / 2 - half],
        [0, 0, 1],
    ])
    board_to_img = lens.camera_matrix @ np.column_stack(
        [rotation[:, 0], rotation[:, 1], rotation[:, 2] * TABLE_Z + tvec])
    h = board_to_img @ tex_to_board
    size = (lens.width, lens.height)
    if not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        # The table seen edge-on (or a camera no file may hold): OpenCV's warp and remap
        # loop for minutes on such a matrix; an even table colour is the honest picture.
        return np.broadcast_to(texture.mean(axis=(0, 1)).astype(texture.dtype),
                               (lens.height, lens.width, texture.shape[2])).copy()
    if lens.und_x is None or lens.und_y is None:
        return cv2.warpPerspective(texture, h, size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REFLECT_101)
    inv = np.linalg.inv(h).astype(np.float32)
    ux, uy = lens.und_x, lens.und_y

    def row(i: int) -> np.ndarray:
        # inv[i, 0] * ux + (inv[i, 1] * uy + inv[i, 2]), in place, in that order.
        out = np.multiply(uy, inv[i, 1])
        out += inv[i, 2]
        out += np.multiply(ux, inv[i, 0], out=np.empty_like(ux))
        return out

    w = row(2)
    tx = row(0)
    tx /= w
    ty = row(1)
    ty /= w
    return cv2.remap(texture, tx, ty, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)


def _sheen(seed: int) -> float:
    """The card's gloss for a frame, on a stream of its own (the other draws unchanged):
    none in a third of frames, else 0.5 to 6 % of the light, added in linear light."""
    rng = np.random.default_rng([seed, 7717])
    return 0.0 if rng.random() < 1 / 3 else float(rng.uniform(0.005, 0.06))


def render(
    scene: Scene | Palace,
    camera: Camera,
    pose: Pose,
    options: RenderOptions | None = None,
    seed: int = 0,
) -> Frame:
    """The picture ``camera`` at ``pose`` takes of ``scene``, with its ground truth.

    Everything random (light, colours, table, clutter, noise) is drawn from ``seed``;
    the same inputs always give the same frame.
    """
    options = options or RenderOptions()
    rng = np.random.default_rng(seed)
    clean = options.clean
    as_scene, pieces, ground = _resolve(scene)
    wide = options.wide and not clean
    look = WideLook.random(rng) if wide else None
    if options.light is not None:
        light = options.light
    else:
        light = CLEAN_LIGHT if clean else (hard_light(rng) if wide else Light.random(rng))
    room = options.room_light and not clean
    # The room light's draws have their own stream: with it off, or on, every other draw
    # of the frame is what it was.
    room_rng = np.random.default_rng([seed, 0x5EAD])
    if room and options.light is None:
        light = room_fill(light, room_rng)
    # Deep shadows draw on a stream of their own too.
    deep = None
    if options.deep_shadows and not clean:
        deep = DeepShadows.random(np.random.default_rng([seed, 0xDEE9]))
        if options.light is None:
            light = deep.deepen(light)
    if options.relight is not None:
        light = options.relight.apply(light)
    jitter = options.color_jitter if options.color_jitter is not None else (0 if clean else 0.05)
    rotation = pose.rotation
    tvec = np.asarray(pose.tvec, float).reshape(3)
    eye = -rotation.T @ tvec

    bases = [_piece_geometry(piece) for piece in pieces]
    tints = np.zeros((0, 3), np.float32)
    if jitter:
        # Per piece: three channel draws, then one shared draw (one call, same stream).
        draws = rng.normal(0, jitter, (len(pieces), 4))
        tints = np.clip(1 + draws[:, :3] * 0.5 + draws[:, 3:], 0.7, 1.3).astype(np.float32)
    plate = board_layer.plate_color()
    if not clean:
        plate = np.clip(plate * rng.uniform(0.9, 1.1, 3), 0, 1).astype(np.float32)
    rim = Mesh()
    _plate_edges(rim, plate)
    geometry = _palace_geometry(pieces, bases, tints, Geometry.from_mesh(rim))
    clutter_on = options.clutter if options.clutter is not None else not clean
    cover_mesh = Mesh()
    if clutter_on:
        cover_mesh.extend(table_clutter(rng, reaching=not options.settled))
    for placed in (*options.hands, *options.cards):
        placed.draw(cover_mesh)
    if options.cover_with not in (None, "hand", "card"):
        raise ValueError(f"cover_with: {options.cover_with!r} is not 'hand' or 'card'")
    if options.cover_corners:
        corners = [p for p in pieces if p.kind is Kind.CORNER]
        for index in options.cover_corners:
            if not 0 <= index < len(corners):
                raise ValueError(f"cover_corners: no corner brick {index} (have {len(corners)})")
            cells = np.array(corners[index].footprint(), float)
            target = np.array([*((cells.mean(axis=0) + 0.5) * STUD_MM),
                               corners[index].top * BRICK_MM])
            use_card = rng.uniform() < 0.3 if options.cover_with is None else (
                options.cover_with == "card")
            corner_cover(cover_mesh, rng, target, eye, use_card=bool(use_card))

    lens = lens_for(camera, options.distortion)
    zb = raster.ZBuffer(lens)
    scene_polys = polygons.prepare(geometry, lens, rotation, tvec)
    raster.draw(zb, scene_polys)
    n_scene = len(scene_polys.outlines)
    extra = polygons.prepare(Geometry.from_mesh(cover_mesh), lens, rotation, tvec)
    covered_before = zb.poly >= 0 if extra.outlines else None
    raster.draw(zb, extra, n_scene)

    texture = card_texture(ground, None if clean else rng, look.inks if look else None)
    table_tex = table_texture(None if clean else rng, options.table)
    if look is not None:
        if look.stud_shadow > 0:
            mask = stud_shadow_mask(light, TEXTURE_PX_PER_MM)
            texture = texture * (1 - look.stud_shadow * light.shadow * mask)[:, :, None]
        if look.bright_table > 0:
            table_tex = table_tex + (np.float32(0.93) - table_tex) * np.float32(look.bright_table)
    pipeline = _override(random_pipeline(None if clean else rng), options)
    flat_level = light.ambient + light.diffuse * max(float(light.direction[2]), 0.0)
    tint = np.array(light.color, np.float32)
    if light.fill is not None:
        # The table's light is the room's and the lamp's, each in its own colour.
        tint = (tint * np.float32(flat_level - light.ambient)
                + np.array(light.fill, np.float32) * np.float32(light.ambient)
                ) / np.float32(max(flat_level, 1e-6))
    expected = (0.6 * texture[::16, ::16].reshape(-1, 3).mean(0)
                + 0.4 * table_tex[::16, ::16].reshape(-1, 3).mean(0)) * flat_level * tint
    gain = auto_gain(pipeline, expected, auto=not clean)

    shadow, contact = board_layer.shadow_maps(
        list(pieces), [g.verts for g in bases], light, light.softness_mm
    )
    if deep is not None:
        contact = deepen_contact(contact, ground_occlusion(
            [g.verts for g in bases], deep, board_layer.SHADOW_MARGIN_MM,
            board_layer.SHADOW_PX_PER_MM))
    board_look = None if look is None else board_layer.BoardLook(
        look.top_level, look.hole_card, look.hole_shade,
        _sheen(seed) if options.card_sheen else 0.0)
    board = board_layer.render_board(lens, rotation, tvec, texture, shadow, contact, light,
                                     plate, gain, nearer=zb.invz, look=board_look)
    table_light = tint * np.float32(flat_level) * gain
    table_u8 = cv2.convertScaleAbs(
        cv2.multiply(table_tex, (*(float(c) for c in table_light), 0.0)))
    image = _table_layer(lens, rotation, tvec, table_u8)

    polys = _concat_prepared(scene_polys, extra)
    lut = np.zeros((0, 3), np.uint8)
    if len(polys.piece):
        shaded = shade_polygons(polys.normals, polys.centroids, polys.colors, polys.gloss,
                                light, eye)
        lut = cv2.convertScaleAbs(shaded * gain[None, :]).reshape(-1, 3)
    labels = composite(image, zb, board, polys, lut)
    piece_ids, kinds, parts_map, depth = labels
    if room:
        shade_pieces(image, piece_ids, zb.poly, polys.normals, depth, lens, pose,
                     [g.verts for g in bases], light,
                     PieceLight.random(room_rng) if deep is None
                     else deep.piece_light(PieceLight.random(room_rng)))
    seams = None
    if (wide if options.seams is None else options.seams) and not clean:
        # A stream of its own: with seams off every other draw of the frame is the same.
        seams = SeamLook.random(np.random.default_rng([seed, 0x5EA3]))
        draw_seams(image, piece_ids, zb.poly, polys, depth, lens, pose, pieces, seams)
    clutter_px = piece_ids == CLUTTER
    occluded = None
    if covered_before is not None:
        # What the clutter hides: board or pieces that would be seen without it.
        x0, y0, x1, y1 = board.box
        behind = covered_before
        behind[y0:y1, x0:x1] |= board.invz > 0
        occluded = clutter_px & behind
    piece_ids[clutter_px] = -1
    kinds[clutter_px] = KIND_BACKGROUND
    depth[clutter_px] = np.inf

    if options.relight is not None and options.relight.shadow > 0:
        image = player_shadow(image, camera, pose, options.relight.shadow,
                              np.random.default_rng([seed, 0x5AD0]),
                              options.relight.shadow_back_mm, light)
    if not clean and (look is None or look.metered):
        image = meter(image, pipeline)
    picture = finish(image, pipeline, rng)
    return Frame(
        image=picture,
        piece_ids=piece_ids,
        kinds=kinds,
        parts=parts_map,
        depth=depth,
        camera=camera,
        pose=pose,
        scene=as_scene,
        pieces=pieces,
        occluded=occluded,
        settings={
            "seed": seed,
            "clean": clean,
            "light": {
                "azimuth_deg": light.azimuth_deg,
                "elevation_deg": light.elevation_deg,
                "color": list(light.color),
                "fill": list(light.fill_color),
            },
            "exposure": pipeline.exposure,
            "noise": pipeline.noise,
            "blur": pipeline.blur,
            "jpeg_quality": pipeline.jpeg_quality,
            "clutter": bool(clutter_on),
            "cover_corners": list(options.cover_corners),
            "wide": wide,
            "relight": None if options.relight is None else options.relight.__dict__,
            "room_light": bool(room),
            "deep_shadows": deep is not None,
            "seams": None if seams is None else {"darkness": seams.darkness,
                                                 "width_mm": seams.width_mm},
        },
    )


_PIECE_GEOMETRY: dict[Piece, Geometry] = {}


def _piece_geometry(piece: Piece) -> Geometry:
    """A piece's polygons in its own colour; a palace changes little from frame to frame."""
    geometry = _PIECE_GEOMETRY.get(piece)
    if geometry is None:
        if len(_PIECE_GEOMETRY) > 5000:
            _PIECE_GEOMETRY.clear()
        geometry = piece_geometry(piece, piece_color(piece))
        _PIECE_GEOMETRY[piece] = geometry
    return geometry


_LAST_PALACE: dict[tuple[Piece, ...], tuple[Geometry, np.ndarray, np.ndarray]] = {}


def _palace_geometry(pieces: tuple[Piece, ...], bases: list[Geometry], tints: np.ndarray,
                     rim: Geometry) -> Geometry:
    """The pieces (piece ``i`` labelled ``i``, its colours times ``tints[i]``) and the rim.

    One concatenation, then labels and tints per polygon in bulk: the same values as
    relabelling and tinting each piece before joining them. The joined pieces are kept
    for the last palace seen, since it is usually rendered from several cameras.
    """
    cached = _LAST_PALACE.get(pieces)
    if cached is None:
        joined = Geometry.concat(bases)
        index = np.arange(len(bases))
        poly_counts = np.array([len(g.sizes) for g in bases], np.int64)
        cyl_counts = np.array([len(g.cyl_radius) for g in bases], np.int64)
        joined = replace(
            joined,
            piece=np.repeat(index, poly_counts).astype(np.int32),
            cyl_piece=np.repeat(index, cyl_counts).astype(np.int32),
        )
        cached = (joined, poly_counts, cyl_counts)
        _LAST_PALACE.clear()
        _LAST_PALACE[pieces] = cached
    joined, poly_counts, cyl_counts = cached
    if len(tints):
        joined = replace(
            joined,
            colors=joined.colors * np.repeat(tints, poly_counts, axis=0),
            cyl_colors=joined.cyl_colors * np.repeat(tints, cyl_counts, axis=0),
        )
    return Geometry.concat([joined, rim])


def _concat_prepared(a: polygons.Prepared, b: polygons.Prepared) -> polygons.Prepared:
    return polygons.Prepared(
        outlines=a.outlines + b.outlines,
        **{
            name: np.concatenate([getattr(a, name), getattr(b, name)])
            for name in ("planes", "normals", "centroids", "colors", "gloss", "piece", "kind",
                         "part", "convex")
        },
    )


def _override(p: Camera8Bit, o: RenderOptions) -> Camera8Bit:
    return Camera8Bit(
        exposure=p.exposure if o.exposure is None else o.exposure,
        white_balance=p.white_balance if o.white_balance is None else o.white_balance,
        blur=p.blur if o.blur is None else o.blur,
        noise=p.noise if o.noise is None else o.noise,
        jpeg_quality=p.jpeg_quality if o.jpeg_quality is None else o.jpeg_quality,
        vignette=p.vignette,
        soften=p.soften,
        motion=p.motion,
        motion_angle=p.motion_angle,
        uneven=p.uneven,
    )

