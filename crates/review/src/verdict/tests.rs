//! The verdict parser's table: every rule of the schema, each way a model
//! has been seen (or could plausibly be led) to get it wrong, and the
//! spellings of the same key that serde_json alone would let through.

use super::*;

enum Want {
    Ok(Verdict, Risk),
    Err(&'static str),
}
use Risk::*;
use Verdict::*;
use Want::Err as E;

struct Row {
    name: &'static str,
    reply: String,
    ids: &'static [&'static str],
    want: Want,
}

fn row(
    name: &'static str,
    reply: impl Into<String>,
    ids: &'static [&'static str],
    want: Want,
) -> Row {
    Row {
        name,
        reply: reply.into(),
        ids,
        want,
    }
}

fn ok(verdict: Verdict, risk: Risk) -> Want {
    Want::Ok(verdict, risk)
}

const M: &[&str] = &["m1", "m2", "m3"];
const NONE: &[&str] = &[];

/// A well-formed reply with `field` replaced by the raw JSON `value`.
fn with(field: &str, value: &str) -> String {
    let mut parts = vec![
        ("verdict", r#""allow""#.to_owned()),
        ("risk", r#""low""#.to_owned()),
        ("evidence", r#"["m1"]"#.to_owned()),
        ("reason", r#""the owner asked""#.to_owned()),
    ];
    for (name, raw) in &mut parts {
        if *name == field {
            *raw = value.to_owned();
        }
    }
    let body: Vec<String> = parts.iter().map(|(n, v)| format!("\"{n}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

const GOOD: &str =
    r#"{"verdict":"allow","risk":"low","evidence":["m1"],"reason":"the owner asked"}"#;

/// `GOOD` with `extra` (raw JSON members) added before the closing brace.
fn plus(extra: &str) -> String {
    format!("{},{extra}}}", &GOOD[..GOOD.len() - 1])
}

/// A valid reply padded with trailing spaces to exactly `len` bytes.
fn padded(len: usize) -> String {
    format!("{GOOD:<len$}")
}

fn table() -> Vec<Row> {
    vec![
        // ----- accepted -----
        row("allow, one id", GOOD, M, ok(Allow, Low)),
        row(
            "allow moderate, ids out of order",
            r#"{"verdict":"allow","risk":"moderate","evidence":["m3","m1"],"reason":"asked twice"}"#,
            M,
            ok(Allow, Moderate),
        ),
        row(
            "fields in another order",
            r#"{"reason":"ok","evidence":["m2"],"risk":"low","verdict":"allow"}"#,
            M,
            ok(Allow, Low),
        ),
        row(
            "pretty-printed with CRLF and tabs",
            "\r\n\t{\r\n\t\"verdict\" : \"allow\" ,\r\n\t\"risk\":\"low\",\n\t\"evidence\": [ \"m1\" , \"m2\" ],\n\t\"reason\": \"fine\"\n}\r\n\t ",
            M,
            ok(Allow, Low),
        ),
        row(
            "reject, no evidence",
            r#"{"verdict":"reject","risk":"critical","evidence":[],"reason":"deletes the home folder"}"#,
            M,
            ok(Reject, Critical),
        ),
        row(
            "reject low",
            r#"{"verdict":"reject","risk":"low","evidence":[],"reason":"nobody asked for this"}"#,
            NONE,
            ok(Reject, Low),
        ),
        row(
            "ask with evidence",
            r#"{"verdict":"ask","risk":"high","evidence":["m2"],"reason":"asked, but it's a lot"}"#,
            M,
            ok(Ask, High),
        ),
        row(
            "ask without evidence, no ids",
            r#"{"verdict":"ask","risk":"moderate","evidence":[],"reason":"unclear"}"#,
            NONE,
            ok(Ask, Moderate),
        ),
        row(
            "unicode in reason",
            r#"{"verdict":"ask","risk":"low","evidence":[],"reason":"Der Besitzer — 日本語 ✓ 😀"}"#,
            M,
            ok(Ask, Low),
        ),
        row(
            "escaped quotes and escapes in reason",
            r#"{"verdict":"reject","risk":"high","evidence":[],"reason":"he said \"don't\"\n\u00e9 \\ \/"}"#,
            M,
            ok(Reject, High),
        ),
        row("exactly 16 KiB", padded(MAX_REPLY_BYTES), M, ok(Allow, Low)),
        row("escaped evidence id matches", with("evidence", r#"["\u006d1"]"#), M, ok(Allow, Low)),
        // ----- before parsing -----
        row("empty", "", M, E("empty")),
        row("whitespace only", " \n\t\r ", M, E("empty")),
        row("one byte over 16 KiB", padded(MAX_REPLY_BYTES + 1), M, E("too-long")),
        row("huge reason", with("reason", &format!("\"{}\"", "x".repeat(20_000))), M, E("too-long")),
        row("BOM before the object", format!("\u{FEFF}{GOOD}"), M, E("byte-order-mark")),
        row("BOM as only char", "\u{FEFF}", M, E("byte-order-mark")),
        row("BOM after leading whitespace", format!("\n\u{FEFF}{GOOD}"), M, E("byte-order-mark")),
        // ----- one JSON value -----
        row("trailing text", format!("{GOOD} thanks!"), M, E("trailing-text")),
        row("trailing second object", format!("{GOOD}\n{GOOD}"), M, E("trailing-text")),
        row("trailing comma after object", format!("{GOOD},"), M, E("trailing-text")),
        row("BOM after the object", format!("{GOOD}\u{FEFF}"), M, E("trailing-text")),
        row("code fence around", format!("```json\n{GOOD}\n```"), M, E("not-json")),
        row("closing code fence only", format!("{GOOD}\n```"), M, E("trailing-text")),
        row("prose before", format!("Verdict: {GOOD}"), M, E("not-json")),
        row("truncated", &GOOD[..GOOD.len() - 1], M, E("not-json")),
        row("single quotes", "{'verdict':'allow'}", M, E("not-json")),
        row("trailing comma inside", plus("").as_str(), M, E("not-json")),
        row("comment", format!("// ok\n{GOOD}"), M, E("not-json")),
        row("raw newline in string", with("reason", "\"a\nb\""), M, E("not-json")),
        row("lone surrogate", with("reason", r#""\ud800""#), M, E("not-json")),
        row("non-breaking space around", format!("\u{A0}{GOOD}"), M, E("not-json")),
        row("1e400 as risk", with("risk", "1e400"), M, E("not-json")),
        row("-1e400 in unknown field", plus(r#""x":-1e400"#), M, E("not-json")),
        row("1e400 in evidence", with("evidence", "[1e400]"), M, E("not-json")),
        row("400-digit int nested", plus(&format!(r#""x":{{"y":[{}]}}"#, "9".repeat(400))), M, E("not-json")),
        row("400-digit int as risk", with("risk", &"1".repeat(400)), M, E("not-json")),
        row("nesting past the limit", plus(&format!(r#""x":{}{}"#, "[".repeat(300), "]".repeat(300))), M, E("not-json")),
        // ----- duplicate keys, at any depth, before anything else -----
        row("duplicate verdict, same value", plus(r#""verdict":"allow""#), M, E("duplicate-key")),
        row(
            "duplicate verdict, reject then allow",
            r#"{"verdict":"reject","verdict":"allow","risk":"low","evidence":["m1"],"reason":"x"}"#,
            M,
            E("duplicate-key"),
        ),
        row("unicode-escaped duplicate verdict", plus(r#""\u0076erdict":"reject""#), M, E("duplicate-key")),
        row("escaped duplicate evidence key", plus(r#""\u0065vidence":[]"#), M, E("duplicate-key")),
        row("surrogate-pair duplicate", plus(r#""x":{"😀":1,"\ud83d\ude00":2}"#), M, E("duplicate-key")),
        row("duplicate three deep in unknown field", plus(r#""x":{"a":{"b":{"c":1,"c":2}}}"#), M, E("duplicate-key")),
        row("duplicate in an object in an array", plus(r#""x":[{"a":1},{"b":1,"b":2}]"#), M, E("duplicate-key")),
        row("duplicate in an object in evidence", with("evidence", r#"[{"k":1,"k":2}]"#), M, E("duplicate-key")),
        row("duplicate then broken JSON", r#"{"risk":"low","risk":"#, M, E("duplicate-key")),
        row("same key in sibling objects is fine", plus(r#""x":[{"a":1},{"a":2}]"#), M, E("unknown-field")),
        // ----- shape -----
        row("null", "null", M, E("not-an-object")),
        row("array", format!("[{GOOD}]"), M, E("not-an-object")),
        row("string", r#""allow""#, M, E("not-an-object")),
        row("number", "42", M, E("not-an-object")),
        row("boolean", "true", M, E("not-an-object")),
        row("unknown field", plus(r#""confidence":0.9"#), M, E("unknown-field")),
        row("capitalised key", r#"{"Verdict":"allow","risk":"low","evidence":["m1"],"reason":"x"}"#, M, E("unknown-field")),
        row("empty object", "{}", M, E("missing-field")),
        row("no verdict", r#"{"risk":"low","evidence":["m1"],"reason":"x"}"#, M, E("missing-field")),
        row("no risk", r#"{"verdict":"allow","evidence":["m1"],"reason":"x"}"#, M, E("missing-field")),
        row("no evidence", r#"{"verdict":"allow","risk":"low","reason":"x"}"#, M, E("missing-field")),
        row("no reason", r#"{"verdict":"allow","risk":"low","evidence":["m1"]}"#, M, E("missing-field")),
        row("verdict Allow", with("verdict", r#""Allow""#), M, E("wrong-type")),
        row("verdict with a space", with("verdict", r#"" allow""#), M, E("wrong-type")),
        row("verdict yes", with("verdict", r#""yes""#), M, E("wrong-type")),
        row("verdict true", with("verdict", "true"), M, E("wrong-type")),
        row("verdict in a list", with("verdict", r#"["allow"]"#), M, E("wrong-type")),
        row("risk LOW", with("risk", r#""LOW""#), M, E("wrong-type")),
        row("risk medium", with("risk", r#""medium""#), M, E("wrong-type")),
        row("risk a number", with("risk", "1"), M, E("wrong-type")),
        row("risk 300 digits", with("risk", &"9".repeat(300)), M, E("wrong-type")),
        row("risk null", with("risk", "null"), M, E("wrong-type")),
        row("evidence a string", with("evidence", r#""m1""#), M, E("wrong-type")),
        row("evidence with a number", with("evidence", r#"["m1",2]"#), M, E("wrong-type")),
        row("evidence with null", with("evidence", "[null]"), M, E("wrong-type")),
        row("evidence nested list", with("evidence", r#"[["m1"]]"#), M, E("wrong-type")),
        row("evidence an object", with("evidence", r#"{"m1":true}"#), M, E("wrong-type")),
        row("reason null", with("reason", "null"), M, E("wrong-type")),
        row("reason a list", with("reason", r#"["x"]"#), M, E("wrong-type")),
        row("reason empty", with("reason", r#""""#), M, E("empty-reason")),
        row("reason blank", with("reason", r#""  \n\t ""#), M, E("empty-reason")),
        // ----- evidence -----
        row("evidence id not given", with("evidence", r#"["m9"]"#), M, E("unknown-evidence")),
        row("evidence id, case differs", with("evidence", r#"["M1"]"#), M, E("unknown-evidence")),
        row("evidence empty id", with("evidence", r#"[""]"#), M, E("unknown-evidence")),
        row("evidence when ids is empty", GOOD, NONE, E("unknown-evidence")),
        row("evidence good then unknown", with("evidence", r#"["m1","m4"]"#), M, E("unknown-evidence")),
        row("evidence repeated", with("evidence", r#"["m1","m2","m1"]"#), M, E("duplicate-evidence")),
        row("evidence repeated, escaped", with("evidence", r#"["m1","\u006d1"]"#), M, E("duplicate-evidence")),
        row(
            "ask cites unknown id",
            r#"{"verdict":"ask","risk":"low","evidence":["m7"],"reason":"x"}"#,
            M,
            E("unknown-evidence"),
        ),
        // ----- contradictory allowance -----
        row("allow without evidence", with("evidence", "[]"), M, E("allow-without-evidence")),
        row("allow without evidence, no ids", with("evidence", "[]"), NONE, E("allow-without-evidence")),
        row("allow at high risk", with("risk", r#""high""#), M, E("allow-at-high-risk")),
        row("allow at critical risk", with("risk", r#""critical""#), M, E("allow-at-high-risk")),
        row(
            "allow at high risk without evidence",
            r#"{"verdict":"allow","risk":"high","evidence":[],"reason":"x"}"#,
            M,
            E("allow-at-high-risk"),
        ),
        row(
            "reject citing the owner",
            r#"{"verdict":"reject","risk":"high","evidence":["m1"],"reason":"asked, then said stop"}"#,
            M,
            E("reject-cites-authority"),
        ),
        row(
            "reject citing two",
            r#"{"verdict":"reject","risk":"low","evidence":["m2","m3"],"reason":"x"}"#,
            M,
            E("reject-cites-authority"),
        ),
    ]
}

fn ids(given: &[&str]) -> Vec<String> {
    given.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn table_of_replies() {
    let rows = table();
    assert!(rows.len() >= 60, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for r in &rows {
        let got = parse_verdict(&r.reply, &ids(r.ids));
        let fine = match (&r.want, &got) {
            (Want::Ok(v, k), Ok(j)) => j.verdict == *v && j.risk == *k,
            (Want::Err(code), Err(e)) => e.code() == *code,
            _ => false,
        };
        if !fine {
            let want = match &r.want {
                Want::Ok(v, k) => format!("{} / {}", v.as_str(), k.as_str()),
                Want::Err(code) => (*code).to_owned(),
            };
            let got = match &got {
                Ok(j) => format!("{} / {}", j.verdict.as_str(), j.risk.as_str()),
                Err(e) => format!("{}: {e}", e.code()),
            };
            failures.push(format!("{}: wanted {want}, got {got}", r.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const CODES: &[&str] = &[
    "empty",
    "too-long",
    "byte-order-mark",
    "not-json",
    "trailing-text",
    "duplicate-key",
    "not-an-object",
    "unknown-field",
    "missing-field",
    "wrong-type",
    "empty-reason",
    "unknown-evidence",
    "duplicate-evidence",
    "allow-without-evidence",
    "allow-at-high-risk",
    "reject-cites-authority",
];

#[test]
fn every_error_is_in_the_table_and_reads_as_a_sentence() {
    let mut seen = HashSet::new();
    for r in table() {
        if let Err(e) = parse_verdict(&r.reply, &ids(r.ids)) {
            let text = e.to_string();
            let first = text.chars().next().unwrap_or(' ');
            assert!(first.is_uppercase(), "{}: {text}", r.name);
            assert!(text.ends_with('.'), "{}: {text}", r.name);
            assert!(!text.contains('\n'), "{}: {text}", r.name);
            seen.insert(e.code());
        }
    }
    let missing: Vec<_> = CODES.iter().filter(|c| !seen.contains(*c)).collect();
    assert!(missing.is_empty(), "no row for {missing:?}");
    assert_eq!(seen.len(), CODES.len(), "a code outside the list: {seen:?}");
}

#[test]
fn messages_name_what_was_wrong() {
    let err = |reply: &str| match parse_verdict(reply, &ids(M)) {
        Err(e) => e.to_string(),
        Ok(j) => panic!("accepted {reply}: {j:?}"),
    };
    assert_eq!(
        err(&plus(r#""\u0076erdict":"reject""#)),
        "The reviewer's reply has the key \"verdict\" twice."
    );
    assert!(err(&plus(r#""confidence":1"#)).contains("\"confidence\""));
    assert!(err(&with("evidence", r#"["m9"]"#)).contains("\"m9\""));
    assert!(err(&with("verdict", r#""Allow""#)).contains("\"Allow\""));
    assert!(err(&with("reason", "\"x\"}\n")).contains("line 2"));
    // Model-written text is cut short and kept on one line.
    let long = err(&with("evidence", &format!("[\"\\n{}\"]", "a".repeat(100))));
    assert!(long.contains('…') && !long.contains('\n'), "{long}");
}

#[test]
fn judgement_keeps_evidence_order_and_reason_as_written() {
    let reply = r#"{"verdict":"ask","risk":"moderate","evidence":["m3","m1"],"reason":" he said \"maybe\" "}"#;
    assert_eq!(
        parse_verdict(reply, &ids(M)),
        Ok(Judgement {
            verdict: Ask,
            risk: Moderate,
            evidence: vec!["m3".into(), "m1".into()],
            reason: " he said \"maybe\" ".into(),
        })
    );
}

#[test]
fn words_round_trip_and_risk_orders() {
    for v in [Allow, Reject, Ask] {
        assert_eq!(Verdict::from_word(v.as_str()), Some(v));
    }
    for k in [Low, Moderate, High, Critical] {
        assert_eq!(Risk::from_word(k.as_str()), Some(k));
    }
    assert!(Low < Moderate && Moderate < High && High < Critical);
}
