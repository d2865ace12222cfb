// The palace in 3D (three.js, vendored): the baseplate with its ground map, every piece
// in its colour, this turn's pieces and offending pieces highlighted. Units: one stud
// is 1, one brick 1.2 (9.6 mm over 8 mm); board x -> X, board y -> Z, up -> Y.
// Without WebGL (an old tablet, a headless browser) it draws a plan from above instead,
// with the same clicks.
import * as THREE from "three";
import { OrbitControls } from "/static/vendor/three/OrbitControls.js";

const H = 1.2;
const GROUND = { L: "#a8d46f", D: "#4f9a4a", G: "#d9bf62", X: "#8d8d8d" };
const COLOUR = {
  dark_orange: "#a95500", tan: "#e4cd9e", dark_tan: "#958a73", reddish_brown: "#582a12",
  light_green: "#bbe90b", dark_green: "#237841", gold: "#cca373", green: "#2f7d32",
  "": "#c8b9a2",
};
const ANIMAL = { monkey: "#8d6e4f", butterfly: "#f08a24", frog: "#b0188a" };

function footprint(p) {
  if (p.kind === "arch") return p.axis === "y" ? [p.x, p.y, 1, 4] : [p.x, p.y, 4, 1];
  if (p.kind === "corner") return [p.x, p.y, 2, 2];
  return [p.x, p.y, 1, 1];
}
function height(p) { return p.kind === "column" ? 3 : 1; }

export class PalaceView {
  constructor(el, onPick) {
    this.el = el; this.onPick = onPick; this.pieces = []; this.mark = {};
    try { this.init3d(); this.mode = "3d"; }
    catch (e) { this.init2d(); this.mode = "2d"; }
  }

  init3d() {
    const probe = document.createElement("canvas");
    if (!(probe.getContext("webgl2") || probe.getContext("webgl"))) throw new Error("no WebGL");
    const r = this.renderer = new THREE.WebGLRenderer({ antialias: true });
    r.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    this.el.appendChild(r.domElement);
    const scene = this.scene = new THREE.Scene();
    scene.background = new THREE.Color("#e9e4d8");
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.5, 400);
    this.camera.position.set(16, 34, 52);
    this.controls = new OrbitControls(this.camera, r.domElement);
    this.controls.target.set(16, 0, 16); this.controls.update();
    scene.add(new THREE.HemisphereLight("#ffffff", "#7a6a55", 1.6));
    const sun = new THREE.DirectionalLight("#ffffff", 1.6); sun.position.set(-20, 50, 30);
    scene.add(sun);
    this.groundCanvas = document.createElement("canvas");
    this.groundCanvas.width = this.groundCanvas.height = 32;
    this.groundTex = new THREE.CanvasTexture(this.groundCanvas);
    this.groundTex.magFilter = THREE.NearestFilter;
    this.groundTex.colorSpace = THREE.SRGBColorSpace;
    const plate = new THREE.Mesh(new THREE.BoxGeometry(32, 0.4, 32),
      [0, 0, 1, 0, 0, 0].map((t) => new THREE.MeshLambertMaterial(
        t ? { map: this.groundTex } : { color: "#3d7a3a" })));
    plate.position.set(16, -0.2, 16); plate.name = "plate";
    scene.add(plate); this.plate = plate;
    const grid = new THREE.GridHelper(32, 32, "#33552f", "#33552f");
    grid.position.set(16, 0.01, 16); grid.material.opacity = 0.25; grid.material.transparent = true;
    scene.add(grid);
    this.group = new THREE.Group(); scene.add(this.group);
    this.ray = new THREE.Raycaster();
    let down = null;
    r.domElement.addEventListener("pointerdown", (e) => { down = [e.clientX, e.clientY]; });
    r.domElement.addEventListener("pointerup", (e) => {
      if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) < 5) this.click3d(e);
    });
    new ResizeObserver(() => this.resize()).observe(this.el);
    this.resize();
    const loop = () => { this.renderer.render(this.scene, this.camera); requestAnimationFrame(loop); };
    loop();
  }

  resize() {
    const w = this.el.clientWidth || 400, h = this.el.clientHeight || 300;
    if (this.mode === "2d") { this.draw2d(); return; }
    this.renderer.setSize(w, h, false); this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
  }

  click3d(e) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((e.clientX - rect.left) / rect.width) * 2 - 1,
      -((e.clientY - rect.top) / rect.height) * 2 + 1);
    this.ray.setFromCamera(ndc, this.camera);
    const hit = this.ray.intersectObjects([...this.group.children, this.plate], true)[0];
    if (!hit) return;
    let o = hit.object;
    while (o && !o.userData.piece && o !== this.plate) o = o.parent;
    if (o && o.userData.piece) { this.onPick({ piece: o.userData.piece }); return; }
    this.onPick({ cell: [Math.floor(hit.point.x), Math.floor(hit.point.z)] });
  }

  update(state, mark) {
    this.pieces = [...state.palace.map((p) => ({ ...p, placed: true })),
      ...(state.draft ? state.draft.pieces.map((d) => ({ ...d.piece, draft: true })) : [])];
    this.ground = state.ground; this.mark = mark;
    if (this.mode === "2d") { this.draw2d(); return; }
    const ctx = this.groundCanvas.getContext("2d");
    state.ground.forEach((row, y) => [...row].forEach((c, x) => {
      ctx.fillStyle = GROUND[c] || "#999"; ctx.fillRect(x, y, 1, 1);
    }));
    this.groundTex.needsUpdate = true;
    this.group.clear();
    for (const p of this.pieces) this.group.add(this.mesh(p));
  }

  material(p) {
    const m = this.mark;
    let colour = ANIMAL[p.kind] || COLOUR[p.color] || COLOUR[""];
    const opts = { color: colour };
    if (m.offending.has(p.id)) Object.assign(opts, { color: "#d8382b", emissive: "#5a0d06" });
    else if (p.draft) Object.assign(opts, { emissive: "#b58500", emissiveIntensity: 0.55 });
    if (m.selected === p.id) Object.assign(opts, { emissive: "#1f6fd6", emissiveIntensity: 0.8 });
    return new THREE.MeshLambertMaterial(opts);
  }

  mesh(p) {
    const [x, y, w, d] = footprint(p), h = height(p) * H, z0 = p.z * H;
    const mat = this.material(p);
    const g = new THREE.Group();
    const box = (bw, bh, bd, cx, cy, cz) => {
      const m = new THREE.Mesh(new THREE.BoxGeometry(bw, bh, bd), mat);
      m.position.set(cx, cy, cz); g.add(m); return m;
    };
    if (p.kind === "arch") {
      const along = p.axis === "y";
      const legs = along ? [[x + 0.5, y + 0.5], [x + 0.5, y + 3.5]] : [[x + 0.5, y + 0.5], [x + 3.5, y + 0.5]];
      for (const [cx, cz] of legs) box(0.96, h, 0.96, cx, z0 + h / 2, cz);
      box(along ? 0.96 : 3.96, h * 0.32, along ? 3.96 : 0.96, x + w / 2, z0 + h * 0.84, y + d / 2);
    } else if (p.kind === "corner") {
      const miss = [[1, 1], [0, 1], [0, 0], [1, 0]][p.turn || 0];
      for (const [dx, dz] of [[0, 0], [1, 0], [0, 1], [1, 1]])
        if (dx !== miss[0] || dz !== miss[1]) box(0.98, h, 0.98, x + dx + 0.5, z0 + h / 2, y + dz + 0.5);
    } else if (ANIMAL[p.kind]) {
      const s = new THREE.Mesh(new THREE.SphereGeometry(0.42, 16, 12), mat);
      s.position.set(x + 0.5, z0 + 0.45, y + 0.5); g.add(s);
    } else if (p.kind === "decoration") {
      const c = new THREE.Mesh(new THREE.CylinderGeometry(0.45, 0.45, h, 18), mat);
      c.position.set(x + 0.5, z0 + h / 2, y + 0.5); g.add(c);
    } else {
      box(0.96 * w, h, 0.96 * d, x + w / 2, z0 + h / 2, y + d / 2);
    }
    if (this.mark.doubtful.has(p.id)) {
      const e = new THREE.LineSegments(new THREE.EdgesGeometry(new THREE.BoxGeometry(w + 0.2, h + 0.2, d + 0.2)),
        new THREE.LineDashedMaterial({ color: "#d8382b", dashSize: 0.3, gapSize: 0.2 }));
      e.computeLineDistances(); e.position.set(x + w / 2, z0 + h / 2, y + d / 2); g.add(e);
    }
    g.userData.piece = p;
    return g;
  }

  // -- the plan from above, without WebGL ------------------------------------------
  init2d() {
    this.canvas = document.createElement("canvas");
    this.el.appendChild(this.canvas);
    this.el.dataset.mode = "2d";
    this.canvas.addEventListener("click", (e) => {
      const r = this.canvas.getBoundingClientRect(), s = r.width / 32;
      const cx = Math.floor((e.clientX - r.left) / s), cy = Math.floor((e.clientY - r.top) / s);
      const top = this.pieces.filter((p) => {
        const [x, y, w, d] = footprint(p); return cx >= x && cx < x + w && cy >= y && cy < y + d;
      }).sort((a, b) => b.z - a.z)[0];
      this.onPick(top ? { piece: top } : { cell: [cx, cy] });
    });
    new ResizeObserver(() => this.draw2d()).observe(this.el);
  }

  draw2d() {
    if (!this.canvas) return;
    const size = Math.min(this.el.clientWidth, this.el.clientHeight) || 320;
    this.canvas.width = this.canvas.height = size;
    this.canvas.style.width = this.canvas.style.height = size + "px";
    const g = this.canvas.getContext("2d"), s = size / 32;
    (this.ground || []).forEach((row, y) => [...row].forEach((c, x) => {
      g.fillStyle = GROUND[c] || "#999"; g.fillRect(x * s, y * s, s, s);
    }));
    const sorted = [...this.pieces].sort((a, b) => a.z - b.z);
    for (const p of sorted) {
      const [x, y, w, d] = footprint(p), m = this.mark || { offending: new Set(), doubtful: new Set() };
      g.fillStyle = m.offending.has(p.id) ? "#d8382b" : (ANIMAL[p.kind] || COLOUR[p.color] || COLOUR[""]);
      g.fillRect(x * s + 1, y * s + 1, w * s - 2, d * s - 2);
      g.lineWidth = p.draft ? 3 : 1; g.strokeStyle = p.draft ? "#f2b705" : "#0006";
      if (m.doubtful.has(p.id)) g.setLineDash([4, 3]); else g.setLineDash([]);
      g.strokeRect(x * s + 1, y * s + 1, w * s - 2, d * s - 2);
      g.fillStyle = "#000a"; g.font = `${Math.max(8, s * 0.5)}px sans-serif`;
      g.fillText(String(p.z + height(p)), x * s + 3, y * s + s * 0.7);
    }
  }
}
