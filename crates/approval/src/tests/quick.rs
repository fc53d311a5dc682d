//! An engine's hook gets the machine's own first step.

use super::*;
use review::Hard;

/// Over every mode, decision and triage, `quick` runs exactly what the
/// machine would run at once, refuses exactly what it refuses, and leaves
/// the rest to the whole path.
#[test]
fn the_hooks_quick_answer_is_the_machines_first_step() {
    let view = protocol::ChatView::default();
    let settings_in = |mode| guard::Settings::new(mode);
    let input = serde_json::json!({ "command": "make test" });
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        for action in [command(), click()] {
            let settings = settings_in(mode);
            let at = Look {
                view: &view,
                settings: &settings,
                work: "/w",
                contacts: &[],
            };
            let call = Call {
                tool: "run_command",
                action: &action,
                input: &input,
            };
            let decided = look(call, &at);
            let question = match &decided.decision {
                Decision::Ask { question, .. } => question.clone(),
                _ => String::new(),
            };
            let want = match Approval::begin(&action, decided).1 {
                Step::Run => Quick::Run,
                Step::Refuse { sentence, .. } => Quick::Refuse(sentence),
                _ => Quick::Ask(question),
            };
            assert_eq!(Approval::quick(call, &at), want, "{mode} {action:?}");
        }
    }
    let _ = Hard::Spending;
}
