"""mkdocs hook: the pages generated from the package (the catalog of samplers, models and kernels;
the command-line reference), added to the build so they never fall behind the code
(:mod:`tempering.cli.reference` writes them)."""

from __future__ import annotations

from mkdocs.structure.files import File


def on_files(files, config):
    from tempering.cli.reference import CATALOG_PAGES, catalog_page, cli_page

    for page, *_ in CATALOG_PAGES:
        files.append(File.generated(config, f"reference/{page}.md", content=catalog_page(page)))
    files.append(File.generated(config, "reference/cli.md", content=cli_page()))
    return files
