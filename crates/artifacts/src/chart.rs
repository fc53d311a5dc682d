//! The chart spec: what a chart artifact's JSON must be. Conch draws it
//! itself, so the spec is data only.
//!
//! ```json
//! {"type": "bar", "title": "Sales", "labels": ["Mon", "Tue"],
//!  "series": [{"name": "Sales", "values": [3, 5]}],
//!  "xTitle": "Day", "yTitle": "Units"}
//! ```

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChartType {
    Bar,
    Line,
    Area,
    Pie,
    Scatter,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChartSpec {
    #[serde(rename = "type")]
    pub chart_type: ChartType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// One per point along the x axis (for a pie, one per slice; for a
    /// scatter, the x values, as numbers).
    pub labels: Vec<serde_json::Value>,
    pub series: Vec<Series>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y_title: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Series {
    pub name: String,
    /// One per label.
    pub values: Vec<f64>,
}

const MAX_LABELS: usize = 10_000;
const MAX_SERIES: usize = 50;

fn label_text(label: &serde_json::Value) -> Option<String> {
    match label {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Checks a chart's JSON; the sentence says what to fix.
pub fn check_chart(text: &str) -> Result<ChartSpec, String> {
    let spec: ChartSpec = serde_json::from_str(text).map_err(|e| {
        format!(
            "The chart isn't a chart spec: {e}. It should be JSON like {{\"type\": \"bar\", \"labels\": [\"Mon\", \"Tue\"], \"series\": [{{\"name\": \"Sales\", \"values\": [3, 5]}}]}}, with type bar, line, area, pie or scatter."
        )
    })?;
    if spec.labels.is_empty() {
        return Err("The chart has no labels. Give one label per point (or slice).".into());
    }
    if spec.labels.len() > MAX_LABELS {
        return Err(format!(
            "The chart has {} labels; at most {MAX_LABELS} can be drawn. Group or sample the data.",
            spec.labels.len()
        ));
    }
    for (i, label) in spec.labels.iter().enumerate() {
        let Some(text) = label_text(label) else {
            return Err(format!(
                "Label {} of the chart is {label}; labels are text or numbers.",
                i + 1
            ));
        };
        if spec.chart_type == ChartType::Scatter && text.parse::<f64>().is_err() {
            return Err(format!(
                "A scatter chart's labels are its x values, so they must be numbers: \"{text}\" isn't."
            ));
        }
    }
    if spec.series.is_empty() {
        return Err(
            "The chart has no series. Give at least one, with a name and one value per label."
                .into(),
        );
    }
    if spec.series.len() > MAX_SERIES {
        return Err(format!(
            "The chart has {} series; at most {MAX_SERIES} can be told apart.",
            spec.series.len()
        ));
    }
    if spec.chart_type == ChartType::Pie && spec.series.len() != 1 {
        return Err(format!(
            "A pie chart has one series, and this one has {}. Make one pie per series, or use a bar chart.",
            spec.series.len()
        ));
    }
    for series in &spec.series {
        if series.name.trim().is_empty() {
            return Err("Every series needs a name.".into());
        }
        if series.values.len() != spec.labels.len() {
            return Err(format!(
                "The chart has {} labels but series \"{}\" has {} values.",
                spec.labels.len(),
                series.name,
                series.values.len()
            ));
        }
        if spec.chart_type == ChartType::Pie {
            if let Some(v) = series.values.iter().find(|v| **v < 0.0) {
                return Err(format!(
                    "A pie chart can't show a negative slice ({v} in \"{}\"). Use a bar chart.",
                    series.name
                ));
            }
        }
    }
    Ok(spec)
}
