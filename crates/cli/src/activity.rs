//! `conch activity [--kind K]… [--since DATE] [--json]`: what the assistant
//! did, newest first, read from the chats' logs.

use clap::Args;
use conversations::activity::Activity;
use conversations::Home;
use protocol::ActivityKind;

use crate::Failure;

#[derive(Args)]
pub struct ActivityArgs {
    /// Only this kind (command, file, page, app, made, question, read,
    /// skill, memory, security, routine); give it again for more.
    #[arg(long = "kind")]
    kinds: Vec<String>,
    /// Only what happened on or after this day (YYYY-MM-DD) or time (RFC 3339).
    #[arg(long)]
    since: Option<String>,
    /// Only questions still waiting for an answer.
    #[arg(long)]
    waiting: bool,
    /// One JSON object a line.
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Home, args: ActivityArgs) -> Result<(), Failure> {
    let mut kinds = Vec::new();
    for k in &args.kinds {
        kinds.push(ActivityKind::parse(k).ok_or_else(|| {
            Failure(format!(
                "\"{k}\" isn't a kind of activity: {}.",
                ActivityKind::names_in_words()
            ))
        })?);
    }
    let since = match &args.since {
        None => None,
        Some(s) => {
            let text = if s.len() == 10 {
                format!("{s}T00:00:00Z")
            } else {
                s.clone()
            };
            Some(protocol::parse_rfc3339(&text).ok_or_else(|| {
                Failure(format!(
                    "\"{s}\" isn't a day (2026-11-29) or a time (2026-11-29T10:00:00Z)."
                ))
            })?)
        }
    };
    let activity = Activity::new(&home.chats_dir());
    let mut before: Option<String> = None;
    let mut day = String::new();
    let mut printed = 0usize;
    'pages: loop {
        let page = activity.page(before.as_deref(), &kinds, args.waiting, 500);
        for r in &page.rows {
            let at_ms = protocol::parse_rfc3339(&r.row.at).unwrap_or(0);
            if since.is_some_and(|s| at_ms < s) {
                break 'pages;
            }
            printed += 1;
            if args.json {
                println!("{}", serde_json::to_string(r).unwrap_or_default());
                continue;
            }
            let this_day = r.row.at.get(..10).unwrap_or("");
            if this_day != day {
                println!("\n{this_day}");
                day = this_day.to_owned();
            }
            let time = r.row.at.get(11..16).unwrap_or("");
            let state = r
                .row
                .state
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            let chat = r.chat_title.as_deref().unwrap_or("a chat");
            println!(
                "  {time}  {:<8} {}{state}  · {chat} [{} #{}]",
                r.row.kind.name(),
                r.row.says,
                r.chat,
                r.row.seq
            );
        }
        match page.next {
            Some(n) => before = Some(n),
            None => break,
        }
    }
    if printed == 0 && !args.json {
        println!("Nothing yet.");
    }
    let t = activity.totals();
    if !args.json && t.review_allowed + t.review_rejected + t.review_asked + t.review_exhausted > 0
    {
        println!(
            "\nAuto mode's reviewer, in all: {} allowed, {} turned down, {} left to you, {} after its budget ran out.",
            t.review_allowed, t.review_rejected, t.review_asked, t.review_exhausted
        );
    }
    Ok(())
}
