//! check_content per kind: good content passes, and each kind of bad
//! content gets the sentence the model is given.

use super::*;

fn says(kind: Kind, text: &str) -> String {
    check_content(kind, text).expect_err("should be refused")
}

#[test]
fn charts() {
    let good = r#"{"type":"bar","labels":["Mon","Tue","Wed"],"series":[{"name":"Sales","values":[3,5,2]}],"xTitle":"Day","yTitle":"Units"}"#;
    assert_eq!(check_content(Kind::Chart, good), Ok(()));
    assert_eq!(
        says(
            Kind::Chart,
            r#"{"type":"line","labels":["a","b","c","d","e"],"series":[{"name":"Sales","values":[1,2,3,4]}]}"#
        ),
        "The chart has 5 labels but series \"Sales\" has 4 values."
    );
    assert!(says(Kind::Chart, "not json").starts_with("The chart isn't a chart spec"));
    assert!(says(
        Kind::Chart,
        r#"{"type":"donut","labels":["a"],"series":[]}"#
    )
    .contains("type bar, line, area, pie or scatter"));
    assert_eq!(
        says(Kind::Chart, r#"{"type":"bar","labels":[],"series":[]}"#),
        "The chart has no labels. Give one label per point (or slice)."
    );
    assert!(
        says(Kind::Chart, r#"{"type":"bar","labels":["a"],"series":[]}"#)
            .starts_with("The chart has no series.")
    );
    assert!(says(
        Kind::Chart,
        r#"{"type":"pie","labels":["a","b"],"series":[{"name":"x","values":[1,2]},{"name":"y","values":[1,2]}]}"#
    )
    .starts_with("A pie chart has one series, and this one has 2."));
    assert!(says(
        Kind::Chart,
        r#"{"type":"pie","labels":["a","b"],"series":[{"name":"x","values":[1,-2]}]}"#
    )
    .starts_with("A pie chart can't show a negative slice"));
    assert_eq!(
        says(
            Kind::Chart,
            r#"{"type":"scatter","labels":["Mon"],"series":[{"name":"x","values":[1]}]}"#
        ),
        "A scatter chart's labels are its x values, so they must be numbers: \"Mon\" isn't."
    );
    assert_eq!(
        check_content(
            Kind::Chart,
            r#"{"type":"scatter","labels":[1,2.5],"series":[{"name":"x","values":[1,2]}]}"#
        ),
        Ok(())
    );
}

#[test]
fn svgs() {
    assert_eq!(
        check_content(
            Kind::Svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>"#
        ),
        Ok(())
    );
    assert_eq!(
        says(Kind::Svg, "<div>hi</div>"),
        "An SVG must start with <svg (no XML declaration, doctype or comment before it)."
    );
    assert!(says(Kind::Svg, "<svg><circle></svg>").starts_with("The SVG isn't well-formed XML"));
    // No doctype games (entity expansion) in an SVG.
    assert!(says(
        Kind::Svg,
        "<svg><!DOCTYPE x [<!ENTITY a \"aaaa\">]><text>&a;</text></svg>"
    )
    .starts_with("The SVG isn't well-formed XML"));
}

#[test]
fn tables() {
    assert_eq!(
        check_content(
            Kind::Table,
            "name,qty\n\"Smith, Ann\",3\n\"say \"\"hi\"\"\",4\n"
        ),
        Ok(())
    );
    assert_eq!(check_content(Kind::Table, "a,b\r\n1,2\r\n"), Ok(()));
    assert_eq!(
        says(Kind::Table, "a,b,c\n1,2,3\n4,5\n"),
        "Row 3 has 2 columns but the header has 3."
    );
    assert!(says(Kind::Table, "a,b\n\"open,2\n")
        .starts_with("The table has a quoted field that never closes"));
    assert_eq!(
        says(Kind::Table, ",,\n1,2,3\n"),
        "The table's first row must be its header: the column names."
    );
}

#[test]
fn mermaid() {
    assert_eq!(
        check_content(Kind::Mermaid, "flowchart LR\n  A --> B\n"),
        Ok(())
    );
    assert_eq!(
        check_content(
            Kind::Mermaid,
            "%% a comment\n---\ntitle: x\n---\nsequenceDiagram\n  A->>B: hi\n"
        ),
        Ok(())
    );
    assert!(says(Kind::Mermaid, "A --> B").starts_with("A Mermaid diagram starts with its type"));
}

#[test]
fn html_and_markdown() {
    assert_eq!(
        check_content(
            Kind::Html,
            "<!doctype html><html><body><p>Hi</p></body></html>"
        ),
        Ok(())
    );
    assert_eq!(check_content(Kind::Html, "<p>a fragment</p>"), Ok(()));
    assert_eq!(
        says(Kind::Html, "just words"),
        "That's plain text, not HTML. Wrap it in HTML, or make it a markdown document."
    );
    assert_eq!(check_content(Kind::Markdown, "# Trip\n\n- pack"), Ok(()));
    assert_eq!(
        says(Kind::Markdown, "  \n"),
        "The content is empty: there's nothing to show as a document."
    );
}

#[test]
fn the_limit_is_400000_characters() {
    let at = "x".repeat(MAX_CHARS);
    assert_eq!(check_content(Kind::Markdown, &at), Ok(()));
    // Characters, not bytes.
    let wide = "é".repeat(MAX_CHARS);
    assert_eq!(check_content(Kind::Markdown, &wide), Ok(()));
    assert_eq!(
        says(Kind::Markdown, &format!("{at}y")),
        "The content is 400,001 characters; the limit is 400,000. Make it smaller, or split it into several artifacts."
    );
}

#[test]
fn titles() {
    assert_eq!(check_title("Weekly numbers"), Ok(()));
    assert_eq!(
        check_title(" "),
        Err("Give the artifact a short title.".into())
    );
    assert!(check_title(&"t".repeat(201)).is_err());
}
