"""Blender script: one validation frame path-traced by Cycles from a job file.

Run as ``blender -b -P twin/cycles/render_scene.py -- JOB.json OUT.png``. The job (written
by :mod:`twin.cycles.driver`) holds the camera, the pose, the card's texture, the
pieces' polygons, the light and the table; everything about *how it looks* (plastic,
printed card, light transport, shadows) is Blender's, not the twin's, which is the
point: frames from a renderer the vision was never tuned on.

This file runs inside Blender's own Python (``bpy``), not the project's: it imports
nothing of the project and nothing beyond the standard library.
"""

import json
import math
import sys
from typing import Any

import bpy  # type: ignore[import-not-found]

MM = 0.001  # the job speaks millimetres, the scene is built in metres


def _linear(rgb: list[float]) -> tuple[float, float, float, float]:
    """sRGB 0..255 to Blender's linear colour."""
    out = []
    for c in rgb:
        c = c / 255.0
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return (*out, 1.0)


def _plastic(name: str, rgb: list[float], roughness: float, specular: float = 0.5) -> Any:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = _linear(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Specular"].default_value = specular
    return mat


def _object(name: str, verts: list, faces: list, material: Any,
            smooth: list[bool] | None = None) -> Any:
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(v * MM for v in p) for p in verts], [], faces)
    mesh.update()
    if smooth is not None:
        for poly, s in zip(mesh.polygons, smooth, strict=True):
            poly.use_smooth = s
    mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _cylinders(cyls: list, segments: int, top: bool) -> tuple[list, list, list]:
    """Side walls (smooth) and optionally top discs of vertical cylinders."""
    verts, faces, smooth = [], [], []
    for x, y, z0, r, h in cyls:
        base = len(verts)
        for i in range(segments):
            a = 2 * math.pi * i / segments
            verts.append((x + r * math.cos(a), y + r * math.sin(a), z0))
            verts.append((x + r * math.cos(a), y + r * math.sin(a), z0 + h))
        for i in range(segments):
            j = (i + 1) % segments
            faces.append((base + 2 * i, base + 2 * j, base + 2 * j + 1, base + 2 * i + 1))
            smooth.append(True)
        if top:
            start = len(verts)
            for i in range(segments):
                a = 2 * math.pi * i / segments
                verts.append((x + r * math.cos(a), y + r * math.sin(a), z0 + h))
            faces.append(tuple(range(start, start + segments)))
            smooth.append(False)
    return verts, faces, smooth


def _box(lo: list[float], hi: list[float]) -> tuple[list, list]:
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
             (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    return verts, faces


def _card(job: dict[str, Any]) -> None:
    """The printed card: a textured sheet whose alpha cuts the stud holes."""
    card = job["card"]
    size, z = card["size_mm"], card["z_mm"]
    mesh = bpy.data.meshes.new("card")
    mesh.from_pydata([(0, 0, z * MM), (size * MM, 0, z * MM), (size * MM, size * MM, z * MM),
                      (0, size * MM, z * MM)], [], [(0, 1, 2, 3)])
    uv = mesh.uv_layers.new()
    for loop, (u, v) in zip(uv.data, ((0, 0), (1, 0), (1, 1), (0, 1)), strict=True):
        loop.uv = (u, v)
    mat = bpy.data.materials.new("card")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = card["roughness"]
    bsdf.inputs["Specular"].default_value = card["specular"]
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = bpy.data.images.load(card["texture"])
    tex.interpolation = "Linear"
    links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    clear = nodes.new("ShaderNodeBsdfTransparent")
    mix = nodes.new("ShaderNodeMixShader")
    out = nodes["Material Output"]
    links.new(tex.outputs["Alpha"], mix.inputs["Fac"])
    links.new(clear.outputs["BSDF"], mix.inputs[1])
    links.new(bsdf.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], out.inputs["Surface"])
    mat.blend_method = "CLIP"
    mesh.materials.append(mat)
    obj = bpy.data.objects.new("card", mesh)
    bpy.context.scene.collection.objects.link(obj)


def _table(job: dict[str, Any]) -> None:
    t = job["table"]
    mat = bpy.data.materials.new("table")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = t["roughness"]
    if t["pattern"] == "wood":
        tex = nodes.new("ShaderNodeTexWave")
        tex.inputs["Scale"].default_value = t["scale"]
        tex.inputs["Distortion"].default_value = 6.0
    else:
        tex = nodes.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = t["scale"]
        tex.inputs["Detail"].default_value = 4.0
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = _linear(t["rgb_a"])
    ramp.color_ramp.elements[1].color = _linear(t["rgb_b"])
    links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    half, z = t["half_mm"], job["plate"]["bottom_mm"]
    _object("table", [(-half, -half, z), (half, -half, z), (half, half, z), (-half, half, z)],
            [(0, 1, 2, 3)], mat)


def _lights(job: dict[str, Any]) -> None:
    world = bpy.data.worlds.new("sky")
    bpy.context.scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = _linear(job["sky"]["rgb"])
    bg.inputs["Strength"].default_value = job["sky"]["strength"]
    for i, lamp in enumerate(job["lamps"]):
        data = bpy.data.lights.new(f"lamp{i}", type=lamp["type"])
        data.energy = lamp["energy"]
        data.color = _linear(lamp["rgb"])[:3]
        obj = bpy.data.objects.new(f"lamp{i}", data)
        if lamp["type"] == "SUN":
            data.angle = math.radians(lamp["angle_deg"])
            el, az = math.radians(lamp["elevation_deg"]), math.radians(lamp["azimuth_deg"])
            # A sun shines along its -Z: tilt it from the zenith towards the azimuth.
            obj.rotation_euler = (0.0, math.pi / 2 - el, az)
        else:
            data.shadow_soft_size = lamp["radius_mm"] * MM
            obj.location = tuple(v * MM for v in lamp["position_mm"])
        bpy.context.scene.collection.objects.link(obj)


def _camera(job: dict[str, Any]) -> None:
    cam = job["camera"]
    data = bpy.data.cameras.new("webcam")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = 36.0
    w, h = cam["width"], cam["height"]
    data.lens = cam["fx"] * 36.0 / w
    data.shift_x = (w / 2 - cam["cx"]) / w
    data.shift_y = (cam["cy"] - h / 2) / w
    data.clip_start = 0.01
    data.clip_end = 30.0
    obj = bpy.data.objects.new("webcam", data)
    r = cam["rotation"]  # board -> OpenCV camera
    t = cam["tvec_mm"]
    eye = [-(r[0][i] * t[0] + r[1][i] * t[1] + r[2][i] * t[2]) * MM for i in range(3)]
    # Blender's camera looks down its -Z with +Y up; OpenCV's down +Z with +Y down.
    cols = [[r[0][i], -r[1][i], -r[2][i]] for i in range(3)]  # R^T diag(1,-1,-1)
    from mathutils import Matrix  # type: ignore[import-not-found]

    m = Matrix(((cols[0][0], cols[0][1], cols[0][2], eye[0]),
                (cols[1][0], cols[1][1], cols[1][2], eye[1]),
                (cols[2][0], cols[2][1], cols[2][2], eye[2]),
                (0, 0, 0, 1)))
    obj.matrix_world = m
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.scene.camera = obj


def build(job: dict[str, Any]) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = job["samples"]
    scene.cycles.use_denoising = False  # Debian's build has no OpenImageDenoise
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.adaptive_threshold = 0.03
    scene.cycles.max_bounces = 4
    scene.cycles.diffuse_bounces = 2
    scene.cycles.glossy_bounces = 2
    scene.cycles.transmission_bounces = 2
    scene.cycles.transparent_max_bounces = 4
    scene.cycles.caustics_reflective = False
    scene.cycles.caustics_refractive = False
    scene.cycles.seed = job["seed"]
    scene.render.threads_mode = "FIXED"
    scene.render.threads = job.get("threads", 2)
    scene.render.resolution_x = job["camera"]["width"]
    scene.render.resolution_y = job["camera"]["height"]
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.exposure = job["exposure_stops"]
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_depth = "16"

    plate = job["plate"]
    green = _plastic("plate", plate["rgb"], plate["roughness"])
    size = plate["size_mm"]
    v, f = _box((0, 0, plate["bottom_mm"]), (size, size, 0.0))
    _object("plate", v, f, green)
    stud = job["stud"]
    v, f, s = _cylinders([(x, y, 0.0, stud["radius_mm"], stud["height_mm"])
                          for x, y in stud["centres_mm"]], 20, top=True)
    tops = _plastic("stud", plate["rgb"], stud["roughness"], stud["specular"])
    _object("studs", v, f, tops, smooth=s)
    _card(job)
    _table(job)
    for i, piece in enumerate(job["pieces"]):
        mat = _plastic(f"piece{i}", piece["rgb"], piece["roughness"], piece.get("specular", 0.5))
        verts, faces = [], []
        for poly in piece["polys"]:
            faces.append(tuple(range(len(verts), len(verts) + len(poly))))
            verts.extend(poly)
        cv, cf, _ = _cylinders(piece["cylinders"], 16, top=False)
        faces.extend(tuple(i + len(verts) for i in face) for face in cf)
        verts.extend(cv)
        _object(f"piece{i}", verts, faces, mat)
    for i, box in enumerate(job["clutter"]):
        mat = _plastic(f"clutter{i}", box["rgb"], box["roughness"])
        v, f = _box(box["lo"], box["hi"])
        _object(f"clutter{i}", v, f, mat)
    _lights(job)
    _camera(job)


def main() -> None:
    argv = sys.argv[sys.argv.index("--") + 1:]
    with open(argv[0], encoding="utf-8") as handle:
        job = json.load(handle)
    build(job)
    bpy.context.scene.render.filepath = argv[1]
    bpy.ops.render.render(write_still=True)


main()
