//! What a chat had read, in words, to carry with what it makes: a routine
//! starts each run with it, an artifact keeps it for its Refresh chats.
//! A mark belongs to data and goes where the data goes.

use protocol::{ChatView, MarkSource};

/// The chat's marks that hold, in words ("read news.example"), and who
/// other than the owner wrote in it ("Eve on telegram"). A person's words
/// are carried as theirs, not as a mark's words.
pub(crate) fn in_words(view: &ChatView) -> (Vec<String>, Vec<String>) {
    let mut marks: Vec<String> = Vec::new();
    for m in view.held_taints() {
        let said = match m.source {
            MarkSource::Person => continue,
            MarkSource::Page | MarkSource::Integration => format!("read {}", m.what),
            MarkSource::Search => format!("searched the web ({})", m.what),
            MarkSource::Download => format!("downloaded from {}", m.what),
            MarkSource::Carried => format!("was marked by {}", m.what),
        };
        if !marks.contains(&said) {
            marks.push(said);
        }
    }
    (marks, view.others.clone())
}
