"""The documentation site: ``mkdocs build --strict`` (warnings are errors: a nav entry or a
link to a missing page, a broken anchor, a docstring mkdocstrings cannot read), every internal link
and anchor of the built pages resolves, every page opens in headless Chromium without
console or page errors and with every image decoded, and the generated catalog lists every
registered sampler, model and kernel with every option. The checkers are shown to fail on a
deliberately broken page."""

from __future__ import annotations

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tempering import MODELS, SAMPLERS
from tempering.cli.reference import catalog_page
from tempering.kernels import KERNELS

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class _Page(HTMLParser):
    """The ids and the ``href``/``src`` targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.targets.append(attrs[key])


@functools.cache
def _parsed(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> list[str]:
    """Every internal ``href``/``src`` of the site's pages whose file or anchor does not exist."""
    broken = []
    for path in sorted(site.rglob("*.html")):
        base = path.relative_to(site).as_posix()
        for target in _parsed(path).targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or target.startswith(("mailto:", "data:")):
                continue
            resolved = urlsplit(urljoin(f"http://site/{base}", target))
            file = site / unquote(resolved.path.lstrip("/"))
            if file.is_dir():
                file = file / "index.html"
            if not file.is_file():
                broken.append(f"{base}: {target} (no such file)")
            elif resolved.fragment and file.suffix == ".html" and \
                    unquote(resolved.fragment) not in _parsed(file).ids:
                broken.append(f"{base}: {target} (no such anchor)")
    return broken


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as ``make docs`` builds it (strict), into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(out)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}"
    return out


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory) -> Path:
    """Two pages with a missing page, a missing anchor and a script error: what the checks catch."""
    out = tmp_path_factory.mktemp("broken")
    (out / "index.html").write_text(
        '<html><body><h1 id="top">x</h1><a href="gone.html">a</a><a href="b.html#nope">b</a>'
        '<a href="#top">c</a><script>undefined_function()</script>'
        '<img src="data:image/png;base64,bm90IGEgcG5n"></body></html>')
    (out / "b.html").write_text('<html><body><p id="here">b</p></body></html>')
    return out


def _serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def browse(folders: dict[str, tuple[Path, tuple[str, ...]]]) -> dict[str, dict[str, list[str]]]:
    """Open the given pages of each folder (served over HTTP, as a user's browser would fetch
    them) in one headless Chromium; return, per folder and page, the console and page errors
    seen, and an error for each image that did not decode."""
    if not CHROMIUM.is_file():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `make browser` (apt-get "
                    "install chromium) — the browser tests need it and do not skip")
    from playwright.sync_api import sync_playwright

    seen: dict[str, dict[str, list[str]]] = {}
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            tab = chromium.new_page()
            errors: list[str] = []
            tab.on("console", lambda m: m.type == "error" and errors.append(m.text))
            tab.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            for name, (folder, pages) in folders.items():
                server, url = _serve(folder)
                try:
                    seen[name] = {}
                    for page in pages:
                        errors.clear()
                        tab.goto(url + page, wait_until="load")
                        broken = tab.evaluate(
                            "Array.from(document.images).filter(i => "
                            "!i.complete || i.naturalWidth === 0).map(i => i.src)")
                        seen[name][page] = [*errors, *(f"image did not decode: {src}"
                                                       for src in broken)]
                finally:
                    server.shutdown()
        finally:
            chromium.close()
    return seen


@pytest.fixture(scope="module")
def browsed(site, broken_site):
    pages = tuple(sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")))
    return browse({"site": (site, pages), "broken": (broken_site, ("index.html",))})


def test_every_internal_link_and_anchor_resolves(site):
    assert broken_links(site) == []


def test_the_link_check_catches_a_missing_page_and_anchor(broken_site):
    assert broken_links(broken_site) == ["index.html: gone.html (no such file)",
                                         "index.html: b.html#nope (no such anchor)"]


def test_every_page_opens_without_errors(browsed, site):
    assert len(list(site.rglob("*.html"))) >= 40
    assert {page: errors for page, errors in browsed["site"].items() if errors} == {}


def test_the_browser_check_catches_a_script_error_and_a_broken_image(browsed):
    errors = browsed["broken"]["index.html"]
    assert any("undefined_function" in e for e in errors)
    assert any(e.startswith("image did not decode") for e in errors)


@pytest.mark.parametrize("page, registry", [("samplers", SAMPLERS), ("models", MODELS),
                                            ("kernels", KERNELS)])
def test_catalog_lists_every_spec_and_option(site, page, registry):
    text = catalog_page(page)
    html = (site / "reference" / f"{page}.html").read_text(encoding="utf-8")
    for spec in registry:
        heading = re.compile(rf'<h2 id="[^"]+"><code>{re.escape(spec.name)}</code>')
        assert f"## `{spec.name}`" in text and heading.search(html), spec.name
        section = text.split(f"## `{spec.name}`", 1)[1].split("\n## ", 1)[0]
        missing = [key for key in spec.options.model_fields if f"| `{key}` |" not in section]
        assert not missing, f"{spec.name}: options missing from the catalog: {missing}"
        for stat in getattr(spec, "stats", ()):
            assert f"| `{stat.name}` |" in section, f"{spec.name}: statistic {stat.name}"


def test_catalog_follows_the_registry():
    """A sampler registered at run time is in the catalog; unregistered, it is gone."""
    spec = SAMPLERS.get("rwm")._replace(name="catalog_probe", summary="a probe")
    SAMPLERS.register(spec)
    try:
        assert "## `catalog_probe`" in catalog_page("samplers")
    finally:
        SAMPLERS.unregister("catalog_probe")
    assert "catalog_probe" not in catalog_page("samplers")
