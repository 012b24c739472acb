"""Payloads that would run, restyle or reorder the page if the console ever treated memory data
as markup, a URL or code. Each one that can run sets window.__xss (the tests' tripwire); each is
one line, NFC and trimmed, so the server stores it exactly and the page must show it verbatim."""

from __future__ import annotations

PAYLOADS: tuple[str, ...] = (
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=2">',
    '<svg onload="window.__xss=3">',
    "<svg><script>window.__xss=4</script></svg>",
    "javascript:window.__xss=5",
    '<a href="javascript:window.__xss=6">click me</a>',
    '<iframe src="javascript:window.__xss=7"></iframe>',
    '<body onload="window.__xss=8">',
    '<div style="background:url(javascript:window.__xss=9)">styled</div>',
    '<div style="width:expression(window.__xss=10)">ie</div>',
    "</style><style>*{display:none!important}</style>",
    '"><img src=x onerror=window.__xss=12>',
    "'><svg/onload=window.__xss=13>",
    "${window.__xss=14}",
    "{{constructor.constructor('window.__xss=15')()}}",
    "`${window.__xss=16}`",
    '<details open ontoggle="window.__xss=17">x</details>',
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=18>",
    '<input autofocus onfocus="window.__xss=19">',
    '<video><source onerror="window.__xss=20"></video>',
    '<object data="javascript:window.__xss=21"></object>',
    '<embed src="data:text/html,<script>window.__xss=22</script>">',
    '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=23">',
    '<base href="javascript:window.__xss=24//">',
    '<form action="javascript:window.__xss=25"><button>go</button></form>',
    "\u202egnp.exe\u202c harmless.txt",  # right-to-left override: "exe.png" shown backwards
    "\u2066isolated\u2069 and \u2067rtl \u05d0\u05d1\u2069 runs",
    "<!--<img src=x onerror=window.__xss=28>-->",
    '<noscript><p title="</noscript><img src=x onerror=window.__xss=29>">',
    "<style>@import 'javascript:window.__xss=30';</style>",
    "&lt;img src=x onerror=window.__xss=31&gt;",
    "data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MzI8L3NjcmlwdD4=",
    "<img src=x:x onerror=eval(atob('d2luZG93Ll9feHNzPTMz'))>",
    "<template><img src=x onerror=window.__xss=34></template>",
    "<a id=x tabindex=1 onfocusin=window.__xss=35 autofocus>focus</a>",
    "java\u200bscript:window.__xss=36",
    '" onmouseover="window.__xss=37" x="',
    "<link rel=stylesheet href=javascript:window.__xss=38>",
    "</textarea><img src=x onerror=window.__xss=39>",
    '<p style="position:fixed;inset:0;background:#f00">covered</p>',
)

# Elements a payload would create inside the page's body if it were ever parsed as HTML; the
# console's own markup has none of them there.
PAYLOAD_TAGS = ", ".join(
    f"body {tag}"
    for tag in (
        "script",
        "img",
        "svg",
        "iframe",
        "object",
        "embed",
        "meta",
        "base",
        "video",
        "source",
        "math",
        "template",
        "details",
        "style",
        "link",
        "body",
        "form form",
        "p[title]",
        "input[autofocus]",
        "[style]",
    )
)


def as_tag(payload: str) -> str | None:
    """The payload as a tag when it can be one (1..64 characters, no comma)."""
    return payload if len(payload) <= 64 and "," not in payload else None
