"""The analysis board in a real browser: Debian's Chromium driven by Playwright against
``ataxx-solve serve`` on a free loopback port. A position loaded, moves clicked, the board and the
move list checked against the reference solver, a PGN game stepped through with verify's
verdicts and its annotated PGN downloaded, and the pixels of screenshots checked as the picture
tests check them (set ATAXX_WEB_SCREENSHOTS=DIR to keep the screenshots).

Skipped, with the reason, only where Chromium is not installed (CI installs it: .ci/run)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import random_positions
from solver.game.rules import Position
from solver.io.formats import parse_position, write_fen
from solver.oracles.reference import ReferenceOracle
from solver.solve.analysis import Analyzer
from test_pictures import _png_pixels
from test_web_server import Served

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
# Debian's Chromium headless, as root, on a machine without a network (the machine notes' flags)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")]

PGN = ('[Event "t"]\n[Black "Alice"]\n[White "Bob"]\n[FEN "x2/3/2o x 0 1"]\n\n1. a2 b1 2. b2 *\n\n'
       '[Black "Carol"]\n[White "Dan"]\n[FEN "x3o x 0 1"]\n\n1. b1 d1 *\n')


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Served(tmp_path_factory.mktemp("serve"), "--max-seconds", "60")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield p
    context.close()
    assert errors == []


def wait_text(page, selector: str, test, what: str, seconds: float = 120) -> str:
    """Wait until the text of ``selector`` passes ``test`` (polled from here: the page's policy
    forbids the string evaluation that Playwright's wait_for_function uses)."""
    for _ in range(int(seconds * 10)):
        text = page.text_content(selector) or ""
        if test(text):
            return text
        page.wait_for_timeout(100)
    raise AssertionError(f"{what}: {text!r}")


def keep(png: bytes, name: str) -> None:
    folder = os.environ.get("ATAXX_WEB_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(png)


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def reference_table(p: Position) -> list[tuple[str, str, str]]:
    """The move list the page should show: each move (best first), its value and depth, from the reference solver."""
    return [(i.name, signed(i.value), "∞" if i.depth is None else str(i.depth)) for i in Analyzer(ReferenceOracle()).moves(p)]


def shown_table(page) -> list[tuple[str, str, str]]:
    rows = page.eval_on_selector_all("#moves tbody tr", """rows => rows.map(r => [r.dataset.uci,
        r.querySelector('.value').textContent, r.querySelector('.depth').textContent])""")
    return [tuple(r) for r in rows]


def wait_analysed(page, p: Position) -> None:
    page.wait_for_selector(f'#board[data-fen="{write_fen(p)}"][data-analysed="1"]', timeout=120_000)


def open_position(page, server, p: Position) -> None:
    from urllib.parse import quote

    page.goto(f"{server.url}?fen={quote(write_fen(p), safe='')}&rules={p.rules.name}")
    wait_analysed(page, p)


def test_load_a_position_click_moves_and_see_the_solvers_values(page, server):
    p = parse_position("to-move: x\nx...\n...o").position
    open_position(page, server, p)
    assert shown_table(page) == reference_table(p)
    assert page.is_visible("#line-empty") and not page.query_selector_all("#line li")
    a = Analyzer(ReferenceOracle())
    ev = a.evaluate(p)
    assert page.text_content("#caption") == f"X to move: {ev.describe()} (value {signed(ev.value)}), depth {ev.depth}"
    best = page.get_attribute("#moves tbody tr:first-child", "data-uci")
    assert best == p.move_name(a.best_move(p)) and "★" in page.text_content("#moves tbody tr:first-child .move")
    # a square alone: the clone there
    page.click("#sq-a1")
    after = p.push(p.parse_move("a1"))
    wait_analysed(page, after)
    assert shown_table(page) == reference_table(after)
    # a piece, then a square: the jump
    jump = next(m for m in after.legal_moves() if m.is_jump)
    name = after.board.square_name
    page.click(f"#sq-{name(jump.frm)}")
    assert page.get_attribute(f"#sq-{name(jump.frm)}", "class").endswith("selected")
    page.click(f"#sq-{name(jump.to)}")
    third = after.push(jump)
    wait_analysed(page, third)
    assert shown_table(page) == reference_table(third)
    assert page.text_content("#ply") == "ply 2 of 2"
    assert [li.text_content() for li in page.query_selector_all("#line li")] == ["a1", after.move_name(jump)]
    assert not page.is_visible("#line-empty")
    # back and forward with the arrow keys; the value history has a point per ply
    page.keyboard.press("ArrowLeft")
    wait_analysed(page, after)
    assert page.text_content("#ply") == "ply 1 of 2"
    page.keyboard.press("ArrowLeft")
    wait_analysed(page, p)
    page.keyboard.press("End")
    wait_analysed(page, third)
    assert len(page.query_selector_all("#history circle")) == 3
    # a move from the list
    first = page.get_attribute("#moves tbody tr:first-child", "data-uci")
    page.click("#moves tbody tr:first-child")
    fourth = third.push(third.parse_move(first))
    wait_analysed(page, fourth)
    assert shown_table(page) == reference_table(fourth)
    # flip
    page.click("#flip")
    assert "flipped" in page.get_attribute("#board", "class")


def test_every_move_row_says_verify_s_verdict(page, server):
    """The verdict cell of each move: verify's word for the move (optimal, inaccuracy, blunder),
    judged from the reference's values; an optimal move's cell says "optimal" (it was left empty)."""
    from solver.play.verify import Verdict, verdict
    from solver.solve.analysis import Interval

    p = parse_position("ox1/1o1/x-o o 0 1").position  # O to move: two optimal moves, an inaccuracy, blunders
    open_position(page, server, p)
    a = Analyzer(ReferenceOracle())
    n = p.board.playable.bit_count()
    best = Interval(a.evaluate(p).value, a.evaluate(p).value, n)
    expected = {i.name: str(verdict(p, best, Interval(i.value, i.value, n))) for i in a.moves(p)}
    assert set(expected.values()) == {"optimal", "inaccuracy", "blunder"}
    shown = dict(page.eval_on_selector_all("#moves tbody tr", """rows => rows.map(r => [r.dataset.uci,
        r.querySelector('.badge').textContent])"""))
    assert shown == expected
    assert page.text_content("#moves tbody tr:first-child .badge") == Verdict.OPTIMAL
    assert page.get_attribute("#moves tbody tr:first-child .badge", "class") == "badge optimal"


def test_the_address_opens_its_position_and_follows_the_line(browser, server):
    """?fen=...&rules=... in the page's address opens that position under those rules; playing,
    the arrow keys and the rules menu keep the address on the position shown (replaceState), so
    that it opens the same position again; a bad FEN there gives the page's one-line error."""
    from urllib.parse import parse_qs, urlsplit

    from solver.game.rules import CLASSIC, UAI

    p = parse_position("to-move: x\nx..o\n#..#", rules=UAI).position
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))

        def address() -> tuple[str, str]:
            q = parse_qs(urlsplit(page.url).query)
            return q["fen"][0], q["rules"][0]

        page.goto(f"{server.url}?fen={write_fen(p).replace(' ', '+')}&rules=uai")  # (as the README's curl writes it)
        wait_analysed(page, p)
        assert page.input_value("#rules") == "uai"
        assert shown_table(page) == reference_table(p) != reference_table(p.replace(rules=CLASSIC))
        assert address() == (write_fen(p), "uai")
        best = page.get_attribute("#moves tbody tr:first-child", "data-uci")
        page.click("#moves tbody tr:first-child")
        after = p.push(p.parse_move(best))
        wait_analysed(page, after)
        assert address() == (write_fen(after), "uai")
        page.keyboard.press("ArrowLeft")
        wait_analysed(page, p)
        assert address() == (write_fen(p), "uai") and page.text_content("#ply") == "ply 0 of 1"
        page.keyboard.press("ArrowRight")
        wait_analysed(page, after)
        assert address() == (write_fen(after), "uai") and page.text_content("#ply") == "ply 1 of 1"
        page.select_option("#rules", "classic")
        for _ in range(1200):  # (the address changes once the position is read under the new rules)
            if address()[1] == "classic":
                break
            page.wait_for_timeout(100)
        classic = parse_position(write_fen(after), rules=CLASSIC).position  # (classic keeps no halfmove clock)
        assert address() == (write_fen(classic), "classic")
        wait_analysed(page, classic)
        assert shown_table(page) == reference_table(classic)
        # the address, copied into another page: the same position under the same rules
        again = context.new_page()
        again.on("pageerror", lambda e: errors.append(str(e)))
        again.goto(page.url)
        wait_analysed(again, classic)
        assert again.input_value("#rules") == "classic" and shown_table(again) == reference_table(classic)
        # a bad FEN: the server's one line, shown as every error of the page is
        bad = "x2o/-2- q 0 1"
        said = server.client.get("/api/position", params={"fen": bad, "rules": "uai"})
        assert said.status_code == 400 and "\n" not in said.text.strip()
        wrong = context.new_page()
        wrong.on("pageerror", lambda e: errors.append(str(e)))
        wrong.goto(f"{server.url}?fen={bad.replace(' ', '+')}&rules=uai")
        assert wait_text(wrong, "#message", bool, "the error") == said.text.strip()
        assert wrong.input_value("#rules") == "uai" and wrong.text_content("#board") == ""
    finally:
        context.close()
    assert errors == []


def test_the_value_history_numbers_the_moves_as_pgn_does(page, server):
    """The value history's points and axis are numbered as PGN numbers moves, from the FEN's move
    number: "12..." for O's move, "13." for X's (they were plies: 0, 1, 2, ...)."""
    p = parse_position("x3/3o o 0 12").position
    open_position(page, server, p)
    line, moves = [p], [""]
    for _ in range(3):  # the best move each time
        best = page.get_attribute("#moves tbody tr:first-child", "data-uci")
        page.click("#moves tbody tr:first-child")
        line.append(line[-1].push(line[-1].parse_move(best)))
        moves.append(f" {best}")
        wait_analysed(page, line[-1])
    assert not line[-2].is_over()
    numbers = page.eval_on_selector_all("#history text.move-number", "ts => ts.map(t => t.textContent)")
    assert numbers == ["start", "12...", "13.", "13..."]
    titles = page.eval_on_selector_all("#history circle", "cs => cs.map(c => c.querySelector('title').textContent)")
    a = Analyzer(ReferenceOracle())
    values = [signed(q.result()) if q.is_over() else signed(a.evaluate(q).value) for q in line]
    assert titles == [f"{n}{m}: {v}" for n, m, v in zip(numbers, moves, values)]
    # the line beside the board numbers its moves the same way (its list counted plies: 1. 2. 3.)
    assert page.eval_on_selector_all("#line li", """ls => ls.map(l =>
        getComputedStyle(l, '::before').content + l.textContent)""") == [f'"{n} "{m[1:]}' for n, m in
                                                                          zip(numbers[1:], moves[1:])]
    keep(page.screenshot(full_page=True), "page-history.png")
    # no point covers the words "X wins" and "O wins" (the start, O winning by all, covered the latter)
    assert page.eval_on_selector_all("#history text.side, #history circle", """es => {
        const boxes = es.map(e => [e.tagName, e.getBBox()]);
        const meet = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
        return boxes.filter(([t]) => t === "text").map(([, a]) => boxes.filter(([t, b]) => t === "circle" && meet(a, b)).length);
    }""") == [0, 0]


@pytest.mark.parametrize("seed", [2911, 2912])
def test_random_positions_show_the_reference_values(page, server, seed):
    for p in random_positions(seed, 3, block_chance=0.15):
        if p.is_over():
            continue
        open_position(page, server, p)
        assert shown_table(page) == reference_table(p), write_fen(p)


def test_step_through_a_pgn_game_with_verify_verdicts_and_download_it(page, server, tmp_path):
    page.goto(server.url)
    page.wait_for_selector('#board[data-analysed="1"]', timeout=120_000)
    page.click("#load-panel summary")
    page.fill("#load-text", PGN)
    page.click("#load")
    start = parse_position("x2/3/2o x 0 1").position
    wait_analysed(page, start)
    assert page.eval_on_selector_all("#games option", "o => o.map(x => x.textContent)") == [
        "game 1 (Alice vs Bob) (3 plies, *)", "game 2 (Carol vs Dan) (2 plies, *)"]
    wait_text(page, "#verify-status", lambda t: t.startswith("verify: Alice"), "verify's summary")
    assert page.text_content("#verify-status") == (
        "verify: Alice: 1 optimal, 0 inaccuracies, 1 blunders; Bob: 0 optimal, 0 inaccuracies, 1 blunders")
    assert "a2 is a blunder" in page.text_content("#verdict")
    assert [li.get_attribute("class") for li in page.query_selector_all("#line li")] == ["blunder", "blunder", None]
    # step forward: each position's board and move list, as the solver gives them
    p = start
    for k, move in enumerate(["a2", "b1", "b2"], 1):
        page.keyboard.press("ArrowRight")
        p = p.push(p.parse_move(move))
        wait_analysed(page, p)
        assert page.text_content("#ply") == f"ply {k} of 3"
        if not p.is_over():
            assert shown_table(page) == reference_table(p)
    assert len(page.query_selector_all("#history circle.blunder")) == 2
    assert page.eval_on_selector_all("#history text.move-number", "ts => ts.map(t => t.textContent)") == [
        "start", "1.", "1...", "2."]
    assert page.eval_on_selector_all("#line li", "ls => ls.map(l => l.dataset.number)") == ["1.", "1...", "2."]
    with page.expect_download() as info:
        page.click("#download")
    got = Path(info.value.path()).read_text()
    assert got.startswith("% written by ataxx-solve verify --annotate")
    assert "1. a2 $4 {played -9, best +9 by b2}" in got and "[Black \"Alice\"]" in got
    # the second game
    page.select_option("#games", "2")
    wait_analysed(page, parse_position("x3o x 0 1").position)
    wait_text(page, "#verify-status", lambda t: t.startswith("verify: Carol"), "verify's summary of game 2")


def _count(pixels, test):
    return sum(1 for px in pixels if test(*px))


def test_the_board_as_a_picture(page, server):
    """The tints as --svg draws them (green wins, red loses) and the best move's orange ring."""
    p = parse_position("to-move: x\nx..\n...\n..o").position
    open_position(page, server, p)
    png = page.locator("#board").screenshot()
    keep(png, "board-3x3.png")
    keep(page.screenshot(full_page=True), "page-3x3.png")
    pixels = _png_pixels(png)
    assert _count(pixels, lambda r, g, b: r < 150 and g == 255 and b < 150) > 5000   # three green squares
    assert _count(pixels, lambda r, g, b: r == 255 and g < 150 and b < 150) > 5000   # four red squares
    assert _count(pixels, lambda r, g, b: r > 200 and 90 < g < 170 and b < 80) > 100  # the best move, b2
    assert _count(pixels, lambda r, g, b: r < 60 and g < 60 and b < 60) > 2000      # X's piece


def test_the_page_at_a_phones_width(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    try:
        p = parse_position("to-move: o\nx.#o\n.##.").position
        open_position(page, server, p)
        box = page.locator("#board").bounding_box()
        assert box is not None and box["width"] <= 390 and box["x"] >= 0
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the screen
        png = page.screenshot(full_page=True)
        keep(png, "page-phone.png")
        pixels = _png_pixels(png)
        assert _count(pixels, lambda r, g, b: r < 150 and g == 255 and b < 150) > 1000  # O's winning square
        page.tap("#sq-d1")  # O's clone there
        wait_analysed(page, p.push(p.parse_move("d1")))
    finally:
        context.close()


def test_a_long_solve_shows_its_progress_and_stops(page, server):
    """The 7 x 7 start is not proved in a minute: the page shows the search live, and stop ends it
    with the intervals proved (pale blue squares). (The position given as older links give it,
    after a #.)"""
    page.goto(f"{server.url}#fen=x5o%2F7%2F7%2F7%2F7%2F7%2Fo5x%20x%200%201")
    text = wait_text(page, "#progress-text", lambda t: "nodes" in t, "the search's progress")
    assert "nodes" in text and " s" in text
    page.click("#stop")
    page.wait_for_selector('#board[data-analysed="1"]', timeout=120_000)
    assert "stopped" in page.text_content("#caption")
    png = page.locator("#board").screenshot()
    keep(png, "board-7x7-stopped.png")
    pixels = _png_pixels(png)
    assert _count(pixels, lambda r, g, b: (r, g, b) == (0xdc, 0xdc, 0xf0)) > 5000  # the bounded squares


def test_an_interval_that_loses_is_tinted_as_a_loss(browser, tmp_path):
    """A square whose interval is all below the draw for the mover is pale red, not pale blue. The
    cache holds -49..-1 for X's position and each move's (true: the search proved -49..-13 for the
    position in 120 s, and no move is worth more to X), and one node a request proves no more than
    the three moves that lose everything at once: c2 and b2 keep their intervals."""
    from solver.app import pictures
    from solver.io.formats import parse_fen
    from solver.solve.analysis import Interval
    from solver.solve.cache import Cache, side_row
    from solver.solve.report import SideResult

    p = parse_fen("ooooooo/ooooooo/ooooooo/ooooooo/ooooooo/7/x6 x 0 1")
    cache = Cache(tmp_path / "cache.sqlite3")
    cache.put([side_row(SideResult(q, Interval(-49, -1, 49))) for q in [p] + [p.push(m) for m in p.legal_moves()]])
    cache.close()
    server = Served(tmp_path, "--max-nodes", "1", "--max-seconds", "120")
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        page = context.new_page()
        open_position(page, server, p)
        classes = {sq: page.get_attribute(f"#sq-{sq}", "class") for sq in ("a2", "b1", "c1", "b2", "c2")}
        assert classes == {"a2": "square empty tinted", "b1": "square empty tinted", "c1": "square empty tinted",
                           "b2": "square empty bounded loss", "c2": "square empty bounded loss"}
        assert page.text_content("#moves tbody tr[data-uci=b2] .cat") == "loss"
        png = page.locator("#board").screenshot()
        keep(png, "board-7x7-bounded-loss.png")
        pixels = _png_pixels(png)
        pale_red = tuple(int(pictures.BOUNDED_LOSS_FILL[k:k + 2], 16) for k in (1, 3, 5))
        assert _count(pixels, lambda r, g, b: (r, g, b) == pale_red) > 3000          # b2 and c2
        assert _count(pixels, lambda r, g, b: (r, g, b) == (0xdc, 0xdc, 0xf0)) == 0  # no pale blue
        assert _count(pixels, lambda r, g, b: r == 255 and g < 150 and b < 150) > 3000  # the exact losses
    finally:
        context.close()
        server.stop()


def test_the_new_board_form_starts_from_the_size_shown(page, server):
    """The "New board" form's rows and columns follow the board shown (a 2 x 4 position opened
    from the address), so that "New board" gives a fresh board of that size."""
    from solver.app.web.inputs import new_board
    from solver.game.rules import CLASSIC

    open_position(page, server, parse_position("x..o/o..x x", rules=CLASSIC).position)
    assert (page.input_value("#new-rows"), page.input_value("#new-cols")) == ("2", "4")
    page.click("#new")
    wait_analysed(page, new_board("2", "4", "", "corners", CLASSIC, "x"))


def test_a_new_board_asked_for_wins_over_the_pages_own_that_answers_later(browser, server):
    """The page opens on a new board of its own; a user who asks for another before that one's
    answer arrives gets theirs, whichever answer comes last (here the page's first request is held
    until the user's board is shown, then let through)."""
    from solver.app.web.inputs import new_board
    from solver.game.rules import CLASSIC

    held = []
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        page = context.new_page()
        page.route("**/api/new?*", lambda route: held.append(route) if not held else route.continue_())
        page.goto(server.url)
        for _ in range(600):  # the page's own request, held
            if held:
                break
            page.wait_for_timeout(100)
        assert held and "blocks=" not in held[0].request.url
        blocks = "b2 c2 d2 b3 c3 d3 b4 c4 d4"
        p = new_board("5", "5", blocks, "corners", CLASSIC, "x")
        page.select_option("#new-rows", "5")
        page.select_option("#new-cols", "5")
        page.fill("#new-blocks", blocks)
        page.click("#new")
        wait_analysed(page, p)
        with page.expect_response(lambda r: r.request == held[0].request):
            held[0].continue_()
        page.wait_for_timeout(1000)  # (time for the late answer to be acted on, were it acted on)
        assert page.get_attribute("#board", "data-fen") == write_fen(p)
        assert page.get_attribute("#board", "data-analysed") == "1"
    finally:
        context.close()


def test_a_5x5_game_from_the_start_with_every_move_exact(browser, tmp_path):
    """With ``--tables DIR`` holding a board's tables, a game from its start is exact at every ply:
    the 5 x 5 board whose centre 3 x 3 is blocked (16 squares: its tables build in seconds), picked
    in the new-board panel and played to the end by clicking the best move, each move list equal
    to the tables' values with no interval, and the value history flat at the start's value."""
    from solver.app.web.inputs import new_board
    from solver.game.rules import CLASSIC
    from solver.tables.build import build
    from solver.tables.probe import Tablebase, TableOracle

    blocks = "b2 c2 d2 b3 c3 d3 b4 c4 d4"
    p = new_board("5", "5", blocks, "corners", CLASSIC, "x")
    build(p.board, tmp_path / "tables")
    oracle = TableOracle(Tablebase(tmp_path / "tables"), p.board)
    server = Served(tmp_path, "--tables", str(tmp_path / "tables"), "--max-seconds", "120")
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url)
        page.select_option("#new-rows", "5")
        page.select_option("#new-cols", "5")
        page.fill("#new-blocks", blocks)
        page.click("#new")
        wait_analysed(page, p)
        start = Analyzer(oracle).evaluate(p).value
        plies = 0
        while not p.is_over():
            expected = [(i.name, signed(i.value), "∞" if i.depth is None else str(i.depth)) for i in Analyzer(oracle).moves(p)]
            assert shown_table(page) == expected, f"ply {plies}"
            assert page.text_content("#position-words") == "(tables)"
            best = page.get_attribute("#moves tbody tr:first-child", "data-uci")
            assert int(page.text_content("#moves tbody tr:first-child .value")) == start  # best play keeps the value
            page.click("#moves tbody tr:first-child")
            p = p.push(p.parse_move(best))
            plies += 1
            if p.is_over():  # (a finished position has no analysis to wait for)
                page.wait_for_selector(f'#board[data-fen="{write_fen(p)}"]')
            else:
                wait_analysed(page, p)
        assert p.result() == start and plies > 10
        assert page.text_content("#caption") == f"game over: {signed(start)} (X's side)"
        titles = page.eval_on_selector_all("#history circle title", "ts => ts.map(t => t.textContent)")
        assert len(titles) == plies + 1 and all(t.endswith(f": {signed(start)}") for t in titles)
        keep(page.screenshot(full_page=True), "page-5x5-ring-game.png")
    finally:
        context.close()
        server.stop()
