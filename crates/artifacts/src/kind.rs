//! The six kinds of artifact.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A self-contained page or small app.
    Html,
    Markdown,
    Svg,
    Mermaid,
    /// A [`crate::ChartSpec`] as JSON.
    Chart,
    /// CSV with a header row.
    Table,
}

pub const KINDS: [Kind; 6] = [
    Kind::Html,
    Kind::Markdown,
    Kind::Svg,
    Kind::Mermaid,
    Kind::Chart,
    Kind::Table,
];

impl Kind {
    pub fn parse(name: &str) -> Option<Kind> {
        KINDS
            .into_iter()
            .find(|k| k.name() == name.trim().to_ascii_lowercase())
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Html => "html",
            Kind::Markdown => "markdown",
            Kind::Svg => "svg",
            Kind::Mermaid => "mermaid",
            Kind::Chart => "chart",
            Kind::Table => "table",
        }
    }

    /// The extension of its version files (`v3.csv`).
    pub fn ext(self) -> &'static str {
        match self {
            Kind::Html => "html",
            Kind::Markdown => "md",
            Kind::Svg => "svg",
            Kind::Mermaid => "mmd",
            Kind::Chart => "json",
            Kind::Table => "csv",
        }
    }

    pub fn from_ext(ext: &str) -> Option<Kind> {
        KINDS.into_iter().find(|k| k.ext() == ext)
    }

    /// How a download is labelled.
    pub fn mime(self) -> &'static str {
        match self {
            Kind::Html => "text/html; charset=utf-8",
            Kind::Markdown => "text/markdown; charset=utf-8",
            Kind::Svg => "image/svg+xml",
            Kind::Mermaid => "text/plain; charset=utf-8",
            Kind::Chart => "application/json",
            Kind::Table => "text/csv; charset=utf-8",
        }
    }

    /// In words, with its article: "a chart", "an HTML page".
    pub fn words(self) -> &'static str {
        match self {
            Kind::Html => "a page",
            Kind::Markdown => "a document",
            Kind::Svg => "a picture",
            Kind::Mermaid => "a diagram",
            Kind::Chart => "a chart",
            Kind::Table => "a table",
        }
    }

    /// Pages and pictures can carry code: they get the navigation check.
    pub fn can_run(self) -> bool {
        matches!(self, Kind::Html | Kind::Svg)
    }
}
