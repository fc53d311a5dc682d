//! The `artifact` event: something was made or changed beside the chat
//! (ADR 0034). The transcript shows it as a card; Activity lists it as
//! "Made …" or "Updated …".

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactAction {
    Made,
    Updated,
    /// A new version from a pinned app's Refresh.
    Refreshed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactEvent {
    /// The artifact's id.
    pub artifact: String,
    pub version: u32,
    pub action: ArtifactAction,
    /// `html`, `markdown`, `svg`, `mermaid`, `chart` or `table`.
    pub kind: String,
    pub title: String,
    /// The static check found a way out of the frame.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub navigates: bool,
    /// The tool call that made it; absent for a fenced block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
}

impl ArtifactEvent {
    /// Activity's row: `Made the chart "Weekly numbers"`.
    pub fn says(&self) -> String {
        let verb = match self.action {
            ArtifactAction::Made => "Made",
            ArtifactAction::Updated => "Updated",
            ArtifactAction::Refreshed => "Refreshed",
        };
        let noun = match self.kind.as_str() {
            "html" => "page",
            "markdown" => "document",
            "svg" => "picture",
            "mermaid" => "diagram",
            "chart" => "chart",
            "table" => "table",
            _ => "artifact",
        };
        format!("{verb} the {noun} \"{}\"", self.title)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_as_activity() {
        let e = ArtifactEvent {
            artifact: "a".into(),
            version: 2,
            action: ArtifactAction::Updated,
            kind: "chart".into(),
            title: "Sales".into(),
            navigates: false,
            call: None,
        };
        assert_eq!(e.says(), "Updated the chart \"Sales\"");
    }
}
