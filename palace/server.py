"""The table's web server: the page, its API and its live updates.

``create_app(session)`` serves one :class:`~palace.session.TableSession`; ``serve``
runs it (``palace serve`` and ``palace demo`` both use it). On 127.0.0.1 nothing else
is asked; on any other address every request must carry the join code that ``serve``
prints (the ``/join?code=...`` link sets it as a cookie), since a table's network is
seldom private.
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Annotated, Any

import uvicorn
from fastapi import FastAPI, Query, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles

from palace.api_models import (
    ConfirmIn,
    Correction,
    EndIn,
    ErrorOut,
    MapPaintIn,
    MapReadOut,
    PassIn,
    SceneIn,
    SetupIn,
    StateOut,
)
from palace.camera_map import CameraMap
from palace.monopoly_api import monopoly_router
from palace.session import TableSession
from palace.turn_actions import SessionError
from rules.settings import RuleSettings

JOIN_COOKIE = "palace_join"
KEEPALIVE_S = 15.0
REFUSED: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "no such turn"},
    409: {"model": ErrorOut, "description": "refused by the rules or the game's state"},
    422: {"model": ErrorOut, "description": "malformed request"},
}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def create_app(session: TableSession, join_code: str | None = None) -> FastAPI:
    """The FastAPI app serving ``session``; ``join_code`` guards every request."""
    app = FastAPI(title="Palace Eye", version="1", docs_url=None, redoc_url=None,
                  description="The table assistant of LEGO Monkey Palace: the game as the "
                  "camera and the players have it, its turns, cards, corrections and undo.")
    static = resources.files("palace") / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    app.include_router(monopoly_router())  # the Monopoly Builder table (by hand)

    @app.middleware("http")
    async def require_join_code(request: Request,
                                call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if join_code and request.url.path != "/join":
            given = (request.cookies.get(JOIN_COOKIE) or request.headers.get("x-join-code")
                     or request.query_params.get("code"))
            if not given or not secrets.compare_digest(given, join_code):
                return JSONResponse({"code": "join_code", "detail": "this table needs its join "
                                     "code: open the link `palace serve` printed"}, 401)
        return await call_next(request)

    @app.exception_handler(SessionError)
    async def refused(_: Request, exc: SessionError) -> JSONResponse:
        body = ErrorOut(code=exc.code, detail=exc.message, report=exc.report)
        return JSONResponse(body.model_dump(), exc.status)

    def state() -> StateOut:
        return StateOut.model_validate_json(session.state_bytes())

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        """The OpenAPI page, its scripts served from the package (no CDN at the table)."""
        return get_swagger_ui_html(
            openapi_url="/openapi.json", title="Palace Eye API",
            swagger_js_url="/static/vendor/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url="/static/vendor/swagger-ui/swagger-ui.css",
            swagger_favicon_url="/static/vendor/swagger-ui/favicon-32x32.png")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(static / "index.html"))

    @app.get("/join", include_in_schema=False)
    async def join(code: str = "") -> Response:
        if not join_code or not secrets.compare_digest(code, join_code):
            return JSONResponse({"code": "join_code", "detail": "wrong join code"}, 401)
        response = RedirectResponse("/", 303)
        response.set_cookie(JOIN_COOKIE, code, httponly=True, samesite="strict")
        return response

    @app.get("/api/state", response_model=StateOut, tags=["game"])
    def get_state() -> StateOut:
        """The whole game as the page shows it."""
        return state()

    @app.post("/api/game", response_model=StateOut, responses=REFUSED, tags=["game"])
    def setup(body: SetupIn) -> StateOut:
        """Sets up a new game; the previous one stays in the log."""
        session.new_game(body.players, body.names, body.map, body.map_data,
                         RuleSettings(**body.rules.model_dump()), body.seed)
        return state()

    @app.post("/api/map/read", response_model=MapReadOut, responses=REFUSED,
              tags=["game"])
    def read_map() -> MapReadOut:
        """Reads the ground map from the camera's latest settled pictures (a few
        seconds); ``POST /api/game`` with ``map: "camera"`` then plays on it. 409
        ``no_camera`` without a camera, ``no_settled_frame`` before the board has
        settled, ``map_not_read`` when the board is in none of the pictures."""
        return _map_out(session.read_map())

    @app.post("/api/map/paint", response_model=MapReadOut, responses=REFUSED,
              tags=["game"])
    def paint_map(body: MapPaintIn) -> MapReadOut:
        """Corrects the map the camera read, before the game starts on it: the players
        compare its picture with the card and paint a stud, a region or a whole ink
        (``reach``) as it is printed. 409 ``no_camera_map`` before a reading, 422
        ``map`` on the starting staircase's studs."""
        return _map_out(session.paint_map(body.x, body.y, body.ink, body.reach))

    @app.post("/api/map/undo", response_model=MapReadOut, responses=REFUSED, tags=["game"])
    def undo_map_paint() -> MapReadOut:
        """Takes back the last correction of the map the camera read (a click on the
        wrong stud or ink); 409 ``no_correction`` when there is none (a new reading
        starts with none)."""
        return _map_out(session.unpaint_map())

    @app.post("/api/game/end", response_model=StateOut, responses=REFUSED, tags=["game"])
    def end(body: EndIn) -> StateOut:
        """Ends the game now; the ranking (with its tie-break) is in the state."""
        session.end_game(body.reason)
        return state()

    @app.post("/api/turn/corrections", response_model=StateOut, responses=REFUSED,
              tags=["turn"])
    def correct(body: Correction) -> StateOut:
        """Corrects this turn's pieces (starting a turn by hand when none is being read);
        the report in the answer is already the corrected one."""
        session.correct(body.model_dump(mode="json"))
        return state()

    @app.post("/api/turn/scene", response_model=StateOut, responses=REFUSED, tags=["turn"])
    def scene(body: SceneIn) -> StateOut:
        """This turn given as the whole board after it (palace-scene/1)."""
        session.set_scene(body.model_dump(mode="json"))
        return state()

    @app.delete("/api/turn", response_model=StateOut, responses=REFUSED, tags=["turn"])
    def discard() -> StateOut:
        """Drops the turn being read (the camera will read the board again)."""
        session.discard()
        return state()

    @app.post("/api/turn/confirm", response_model=StateOut, responses=REFUSED, tags=["turn"])
    def confirm(body: ConfirmIn) -> StateOut:
        """The active player plays this turn with the cards picked."""
        session.confirm(body.seat, body.purchases, free_arches=body.free_arches,
                        stacks=body.stacks, monkey_at=body.monkey_at)
        return state()

    @app.post("/api/turn/pass", response_model=StateOut, responses=REFUSED, tags=["turn"])
    def pass_turn(body: PassIn) -> StateOut:
        """The active player cannot attach a staircase: only the recurring delivery."""
        session.pass_turn(body.seat, free_arches=body.free_arches)
        return state()

    @app.post("/api/turns/{number}/undo", response_model=StateOut, responses=REFUSED,
              tags=["turns"])
    def undo(number: int) -> StateOut:
        """Takes back turn ``number`` and all after it; its pieces become this turn's."""
        session.undo(number)
        return state()

    @app.get("/api/turns/{number}/palace.ldr", response_class=PlainTextResponse,
             responses=REFUSED, tags=["export"])
    def ldraw(number: int) -> PlainTextResponse:
        """The palace after turn ``number`` (0: the set-up) as an LDraw model."""
        text = session.ldraw(number)
        return PlainTextResponse(text, media_type="application/x-ldraw", headers={
            "content-disposition": f'attachment; filename="palace-turn-{number}.ldr"'})

    @app.get("/api/turns/{number}/frames/{index}.jpg", responses=REFUSED, tags=["export"],
             response_class=Response)
    def frame(number: int, index: int) -> Response:
        """A frame that decided turn ``number`` (JPEG)."""
        frames = session.frames(number)
        if not 0 <= index < len(frames):
            raise SessionError(404, "no_such_frame", f"turn {number} has {len(frames)} frames")
        return Response(frames[index], media_type="image/jpeg")

    @app.get("/api/export.json", tags=["export"])
    def export() -> JSONResponse:
        """The whole game from the log: set-up, turns (undone ones marked), card picks,
        corrections, undos and the final position."""
        return JSONResponse(session.export(), headers={
            "content-disposition": 'attachment; filename="palace-game.json"'})

    @app.get("/api/camera.jpg", response_class=Response, responses=REFUSED, tags=["camera"])
    def camera(webcam: Annotated[int, Query(ge=1, le=2, description=(
            "1: the webcam that decides when a turn is read; 2: a second webcam on "
            "another side of the table (`palace watch --second`)"))] = 1) -> Response:
        """The newest camera picture with the board overlay."""
        latest = session.webcam_feed(webcam).jpeg()
        if latest is None:
            raise SessionError(404, "no_frame", f"no picture from webcam {webcam} yet")
        return Response(latest[1], media_type="image/jpeg",
                        headers={"cache-control": "no-store", "x-frame": str(latest[0])})

    @app.get("/api/events", tags=["live"], response_class=StreamingResponse)
    async def events(request: Request) -> StreamingResponse:
        """Server-sent events: ``state`` (the whole state as JSON) whenever the game
        changes, ``frame`` (its number) when a new camera picture is there,
        ``second_frame`` when a second webcam's is."""
        return StreamingResponse(_stream(session, request), media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    return app


async def _stream(session: TableSession, request: Request) -> AsyncIterator[bytes]:
    hub = session.hub
    sub = hub.subscribe()
    try:
        while True:
            for topic in hub.changed(sub):
                if topic == "state":
                    data = await asyncio.to_thread(session.state_bytes)
                else:
                    feed = session.webcam_feed(1 if topic == "frame" else 2)
                    data = str(feed.status()["frame"]).encode()
                yield b"event: " + topic.encode() + b"\ndata: " + data + b"\n\n"
            try:
                await asyncio.wait_for(sub.event.wait(), KEEPALIVE_S)
            except TimeoutError:
                if await request.is_disconnected():
                    break
                yield b": keepalive\n\n"
            sub.event.clear()
    finally:
        hub.unsubscribe(sub)


def _map_out(got: CameraMap) -> MapReadOut:
    return MapReadOut(map=got.ground.to_json(), known=got.known, unknown=got.unknown,
                      start_area=len(got.ground.start_area), views=got.views,
                      pictures=got.offered, fused=got.fused, png=got.png_base64(),
                      turn=got.turn)


def serve(session: TableSession, host: str = "127.0.0.1", port: int = 8000,
          held: socket.socket | None = None) -> None:
    """Runs the server until interrupted; away from 127.0.0.1 it makes and prints a
    join code that every page must give. ``held``: the port already bound (the
    commands reserve it before their slower set-up), else uvicorn binds it."""
    code = None if is_loopback(host) else f"{secrets.randbelow(10**6):06d}"
    shown = _lan_address() if host in ("0.0.0.0", "::") else host
    print(f"Palace Eye: the table is at http://{shown}:{port}/", flush=True)
    if code:
        print(f"Join code {code}: on the tablet open http://{shown}:{port}/join?code={code}",
              flush=True)
    app = create_app(session, join_code=code)
    # Pages hold their event streams open for ever: without a limit on the graceful
    # shutdown, Ctrl-C would wait for every tablet to close its page.
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=2)
    uvicorn.Server(config).run(sockets=[held] if held is not None else None)


def _lan_address() -> str:
    """This machine's address on its local network, as a tablet would reach it (a UDP
    socket is only pointed at a private address: nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
