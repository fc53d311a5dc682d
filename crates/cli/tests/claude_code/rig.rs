//! What each test needs: the real `claude` (installed from npm by
//! ./run-tests), the scripted model, a temporary Conch home and work
//! folder, and the engine set up the way `conch serve` sets it up, with the
//! real `conch` binary as its hook.

// Shared by several test files, each of which uses only some of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home, NoTools, Safety};
use engines::claude_code::{ClaudeCode, ClaudeCodeConfig, Provider};
use protocol::{Body, Event, Mode};

use super::model::Model;

/// The real Claude Code: $CONCH_TEST_CLAUDE, else the one ./run-tests
/// installs from npm. Missing is a failure, never a skip.
pub fn claude_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("CONCH_TEST_CLAUDE") {
        return PathBuf::from(bin);
    }
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/npm/node_modules/.bin/claude");
    assert!(
        bin.exists(),
        "The real Claude Code isn't installed for these tests. Run ./run-tests, or: (cd crates/cli/tests/npm && npm ci), or set CONCH_TEST_CLAUDE to a claude binary."
    );
    bin
}

pub const MODEL: &str = "claude-sonnet-4-5";

pub fn config(home: &Path, model: &Model) -> ClaudeCodeConfig {
    ClaudeCodeConfig {
        bin: claude_bin(),
        provider: Provider {
            model: Some(MODEL.into()),
            base_url: Some(model.base.clone()),
            key: Some("sk-ant-test-key".into()),
        },
        state: home.join("engines").join("claude-code"),
        run: home.join("run"),
        hook: PathBuf::from(env!("CARGO_BIN_EXE_conch")),
    }
}

pub struct Rig {
    pub _dir: tempfile::TempDir,
    pub home: Home,
    pub work: PathBuf,
    pub model: Model,
    pub engine: Arc<ClaudeCode>,
    pub chats: Arc<Chats>,
}

/// No tools of Conch's own, and the box engines run in (as `conch serve`
/// sets it up for the Conch folder).
pub struct BoxedTools(pub Arc<seal::Sealed>);

impl BoxedTools {
    pub fn new(conch_home: &Path) -> BoxedTools {
        BoxedTools(Arc::new(
            seal::Sealed::new(conch_home, tools::protected::here(conch_home)).unwrap(),
        ))
    }
}

impl tools::ToolBox for BoxedTools {
    fn specs(&self) -> Vec<protocol::ToolSpec> {
        Vec::new()
    }
    fn classify(&self, call: &tools::ToolCall, work: &Path) -> Result<protocol::Action, String> {
        NoTools.classify(call, work)
    }
    fn run<'a>(
        &'a self,
        call: &'a tools::ToolCall,
        action: &'a protocol::Action,
        ctx: &'a tools::RunContext,
    ) -> tools::BoxFuture<'a, tools::Outcome> {
        NoTools.run(call, action, ctx)
    }
    fn sealed(&self) -> Option<Arc<seal::Sealed>> {
        Some(self.0.clone())
    }
}

pub async fn rig(mode: Mode, policies: BTreeMap<String, guard::Policy>, sealing: bool) -> Rig {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let home = Home::open(&root.join("home")).unwrap();
    let model = Model::start().await;
    let engine = Arc::new(ClaudeCode::new(config(home.root(), &model)));
    // Sealing: Claude Code runs in the box, as `conch serve` runs it. Not:
    // the owner turned Run engines in the box off.
    let switches = Arc::new(conversations::safety::Switches::new(&Safety {
        sealed_commands: sealing,
        engines_in_box: sealing,
        ..Safety::default()
    }));
    switches.set_policies(policies.clone());
    let tools: Arc<dyn tools::ToolBox> = if sealing {
        Arc::new(BoxedTools::new(home.root()))
    } else {
        Arc::new(NoTools)
    };
    let chats = Chats::new(
        home.clone(),
        engine.clone(),
        tools,
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: mode,
            policies,
            guard: GuardConfig {
                switches: Some(switches),
                ..GuardConfig::usual(&home)
            },
            skills: None,
            max_steps: None,
        },
    );
    Rig {
        _dir: dir,
        home,
        work,
        model,
        engine,
        chats,
    }
}

/// Waits (up to 30 s) for an event past `after` that `want` picks.
pub async fn until(chat: &conversations::Chat, after: u64, want: impl Fn(&Event) -> bool) -> Event {
    until_within(chat, after, want, Duration::from_secs(30)).await
}

pub async fn until_within(
    chat: &conversations::Chat,
    after: u64,
    want: impl Fn(&Event) -> bool,
    most: Duration,
) -> Event {
    let deadline = std::time::Instant::now() + most;
    while std::time::Instant::now() < deadline {
        let events = chat.log.events_after(after).unwrap();
        if let Some(e) = events.into_iter().find(|e| want(e)) {
            return e;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "timed out; the log:\n{:#?}",
        chat.log.events_after(0).unwrap()
    );
}

pub fn asked(e: &Event) -> bool {
    matches!(e.body, Body::PermissionRequested(_))
}

pub fn ended(e: &Event) -> bool {
    matches!(e.body, Body::TurnEnded(_))
}
