"""``harness/_escape.py``: outside text made inert for each format (issue 11)."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

import pytest
from markdown_it import MarkdownIt

from harness._escape import (
    html_text,
    md_block,
    md_code,
    md_text,
    plot_text,
    safe_filename,
    terminal,
    visible,
    xml_text,
)
from tests.faulty.hostile import HOSTILE

MD = MarkdownIt("gfm-like", {"html": True, "linkify": False})


def test_visible_shows_every_control() -> None:
    shown = visible("a\x1b[31mb\x00c\rd\u202ee\ud800f\x7fg\x9bh\tI\nJ")
    assert shown == "a\\x1b[31mb\\x00c\\rd\\u202ee\\ud800f\\x7fg\\x9bh\tI\nJ"
    assert visible("a\tb\nc", one_line=True) == "a\\tb\\nc"
    assert not any(c in terminal(HOSTILE) for c in ("\x1b", "\x00", "\r", "\ud800", "\u202e"))


def test_html_escapes_text_and_attributes() -> None:
    out = html_text("<a href=\"x\" onclick='y'>&</a>\x00")
    assert out == "&lt;a href=&quot;x&quot; onclick=&#x27;y&#x27;&gt;&amp;&lt;/a&gt;\\x00"


@pytest.mark.parametrize(
    "text", [HOSTILE, "&amp;&lt;'\"<>&", "", "a&&b<<c>>d\"\"e''f", "\u00e9\u20ac&\U0001f600<"]
)
def test_html_text_is_html_escape_of_the_visible_text(text: str) -> None:
    assert html_text(text) == html.escape(visible(text), quote=True)


def test_markdown_text_renders_as_the_text_itself() -> None:
    for text in (
        "<b>x</b>",
        "# heading",
        "- item",
        "1. item",
        "a | b",
        "`code`",
        "*em* _u_",
        "[l](u)",
    ):
        rendered = MD.render(f"| h |\n|---|\n| {md_text(text)} |\n")
        assert "<td>" in rendered and rendered.count("<td") == 1, (text, rendered)
        assert "<b>" not in rendered and "<em>" not in rendered and "<a " not in rendered
        assert "<code>" not in rendered, (text, rendered)


def test_code_spans_and_blocks_cannot_be_closed_from_inside() -> None:
    for text in ("a`b", "``", "x ```` y", "`", "```\n<script>\n```"):
        span = MD.render(md_code(text))
        assert span.count("<code>") == 1 and "<script>" not in span, (text, span)
        block = MD.render(md_block(text) + "\n\nafter")
        assert block.count("<pre>") == 1 and "<p>after</p>" in block, (text, block)
    cell = MD.render(f"| h |\n|---|\n| {md_code('a|b', in_table=True)} |\n")
    assert cell.count("<td") == 1


def test_xml_text_is_always_valid_xml() -> None:
    element = ET.Element("t", a=xml_text(HOSTILE))
    element.text = xml_text(HOSTILE + "\ufffe\x0b")
    ET.fromstring(ET.tostring(element, encoding="unicode").encode("utf-8"))


def test_plot_labels_have_no_mathtext_and_are_bounded() -> None:
    label = plot_text("$x$ " + "y" * 500)
    assert "\\$x\\$" in label and len(label) <= 84


def test_file_names_are_safe_bounded_and_distinct() -> None:
    for text in ("../../etc/passwd", "/abs", ".hidden", "a\x00b", "é" * 300, "con:1", ""):
        name = safe_filename(text)
        assert name and len(name) <= 80 and "/" not in name and not name.startswith(".")
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    assert safe_filename("robots_rules.x2") == "robots_rules.x2"
    assert safe_filename("a/b") != safe_filename("a_b")
