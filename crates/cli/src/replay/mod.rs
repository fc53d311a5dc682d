//! `conch replay SCENARIO.json [--json] [--home DIR]`: a scripted chat run
//! through the real conversations crate (the real turn loop, broker, guard
//! and tools, a temporary home and work folder), printing every call's
//! outcome. Only the model is scripted. docs/replay.md has the format.

mod engine;
mod integrations;
mod pages;
mod real_apps;
mod scenario;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use conversations::{Chat, Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat};
use engines::Chunk;
use protocol::{Answer, Body, Event, Mode, Origin, Speaker};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tools::{FetchConfig, Tools, ToolsConfig};

use crate::Failure;
use engine::{Move, ReplayEngine};
use scenario::{Scenario, Step};

#[derive(Args)]
pub struct ReplayArgs {
    /// The scenario file.
    scenario: PathBuf,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
    /// Auto mode's reviewer: `always-allow` answers allow to everything it
    /// is asked, whatever the scenario's steps say (to show a rule holds
    /// when the reviewer is fooled).
    #[arg(long, value_name = "REVIEWER")]
    review: Option<scenario::Reviewer>,
}

/// How long one step may take before replay gives up on it.
const STEP_TIME: Duration = Duration::from_secs(30);

pub fn run(keep: Option<&Path>, args: ReplayArgs) -> Result<(), Failure> {
    let shown = args.scenario.display().to_string();
    let text = std::fs::read_to_string(&args.scenario)
        .map_err(|e| Failure(format!("{shown} can't be read: {e}.")))?;
    let mut scenario: Scenario = serde_json::from_str(&text).map_err(|e| {
        Failure(format!(
            "{shown} isn't a replay scenario: {e}. See docs/replay.md."
        ))
    })?;
    if args.review.is_some() {
        scenario.review = args.review;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("Conch couldn't start its runtime: {e}.")))?;
    // A scenario's app arguments starting ./ or ../ are the scenario
    // folder's, so a scenario runs from anywhere.
    let base = args
        .scenario
        .parent()
        .map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
    let base = base.canonicalize().unwrap_or(base);
    let report = runtime.block_on(drive(scenario, keep, &base))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print_report(&report);
    }
    Ok(())
}

fn parse_mode(text: &str) -> Result<Mode, Failure> {
    Mode::parse(text).ok_or_else(|| {
        Failure(format!(
            "There's no mode called \"{text}\". Use ask, edits, auto or full."
        ))
    })
}

fn origin_of(scenario: &Scenario) -> Result<Origin, Failure> {
    let origin = match scenario.origin.as_deref() {
        None | Some("owner") => Origin::Owner,
        Some("app") => Origin::App,
        Some("routine") => Origin::Routine,
        Some("task") => Origin::Task,
        Some(other) => {
            return Err(Failure(format!(
                "There's no origin called \"{other}\". Use owner, app, routine or task."
            )))
        }
    };
    // Nobody there: a chat the owner didn't start.
    Ok(if !scenario.present && origin == Origin::Owner {
        Origin::Routine
    } else {
        origin
    })
}

async fn drive(scenario: Scenario, keep: Option<&Path>, base: &Path) -> Result<Value, Failure> {
    let temp = tempfile::tempdir().map_err(|e| Failure(format!("No temporary folder: {e}.")))?;
    let home_dir = keep.map_or_else(|| temp.path().join("home"), Path::to_path_buf);
    let work = match &scenario.work {
        Some(work) => work.clone(),
        None => {
            let work = temp.path().join("work");
            std::fs::create_dir_all(&work)?;
            work
        }
    };
    let home = Home::open(&home_dir)?;
    // The scenario's skills, as Conch's own; nobody else's folders are read.
    install_skills(&home, &scenario)?;
    let catalog = Arc::new(skills::Catalog {
        conch_home: home.root().to_path_buf(),
        person_home: None,
        project: None,
    });
    let proxy = pages::serve(scenario.pages.clone()).await?;
    let proxy_address = proxy.clone();
    let integrations: HashMap<String, bool> = scenario
        .integrations
        .iter()
        .map(|i| (i.name.clone(), i.read_only))
        .collect();
    let seal = if scenario.sealed {
        if let seal::Support::Unavailable { problem } = seal::sandbox_support() {
            return Err(Failure(format!(
                "The scenario runs sealed, but {}",
                problem.sentence()
            )));
        }
        Some(Arc::new(seal::Sealed::new(
            home.root(),
            tools::protected::here(home.root()),
        )?))
    } else {
        None
    };
    let real_apps =
        real_apps::start(home.root(), &work, base, &scenario.apps, seal.clone()).await?;
    let toolbox = Arc::new(integrations::ReplayTools {
        inner: Tools::new(ToolsConfig {
            seal,
            skills: Some(catalog.clone()),
            fetch: FetchConfig {
                proxy: Some(proxy),
                timeout: Duration::from_secs(10),
                ..FetchConfig::default()
            },
            ..ToolsConfig::default()
        }),
        integrations,
        returns: Mutex::new(HashMap::new()),
    });
    let (mut engine, moves) = ReplayEngine::new();
    engine.always_allow = scenario.review == Some(scenario::Reviewer::AlwaysAllow);
    let reviews = engine.reviews.clone();
    let mode = parse_mode(&scenario.mode)?;
    let offered: Arc<dyn tools::ToolBox> = match real_apps {
        Some(apps) => Arc::new(apps::WithApps {
            inner: toolbox.clone(),
            apps,
        }),
        None => toolbox.clone(),
    };
    let chats = Chats::new(
        home.clone(),
        Arc::new(engine),
        offered,
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: mode,
            policies: scenario.policies.clone(),
            guard: GuardConfig {
                check_after_reading: scenario.safety.check_after_reading,
                review: conversations::AutoReview {
                    deadline_ms: scenario.review_deadline_ms,
                    budget: scenario.review_budget,
                    context_chars: None,
                }
                .config(),
                ..GuardConfig::usual(&home)
            },
            skills: Some(catalog.clone()),
            max_steps: scenario.max_steps,
        },
    );
    chats.switches().set(&scenario.safety);
    // Conch's browser, when a step uses it: Debian's Chromium with its own
    // profile in the temporary home, every request sent to replay's own
    // pages as its proxy (nothing else is reached).
    let uses_browser = scenario
        .steps
        .iter()
        .any(|s| matches!(s, Step::Call(c) if c.call.tool.starts_with("browser_")));
    if uses_browser {
        let mut config = browser::Config::in_home(home.root());
        config.extra_args = vec![
            format!("--proxy-server={proxy_address}"),
            "--proxy-bypass-list=<-loopback>".to_owned(),
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1".to_owned(),
        ];
        chats.use_browser(browser::Browser::new(config));
    }
    seed_memories(&home, &scenario)?;
    let chat = chats
        .create(NewChat {
            work: Some(work.to_string_lossy().into_owned()),
            mode: Some(mode),
            origin: Some(origin_of(&scenario)?),
            parent: None,
            artifact: None,
        })
        .await?;

    let mut calls = Vec::new();
    let mut stops = Vec::new();
    for (index, step) in scenario.steps.iter().enumerate() {
        match step {
            Step::Owner(s) => {
                end_turn(&chat, &moves).await?;
                chat.post(&s.owner).await?;
                turn_started(&chat).await?;
            }
            Step::Person(s) => {
                end_turn(&chat, &moves).await?;
                chat.post_as(
                    Speaker::Person,
                    &s.text,
                    Some(s.person.name.clone()),
                    s.person.app.clone(),
                )
                .await?;
                turn_started(&chat).await?;
            }
            Step::Routine(s) => {
                end_turn(&chat, &moves).await?;
                chat.post_as(Speaker::Routine, &s.routine, None, None)
                    .await?;
                turn_started(&chat).await?;
            }
            Step::Mode(s) => chat.set_mode(parse_mode(&s.mode)?).await?,
            Step::Reply(s) => {
                need_turn(&chat, index)?;
                send(&moves, Move::Reply(s.reply.clone())).await?;
                turn_ended(&chat).await?;
            }
            Step::Skill(s) => {
                if s.by.as_deref().is_some_and(|b| b != "typed") {
                    return Err(Failure(format!("Step {index}: a skill step is typed by the owner; the assistant uses a skill with a use_skill call.")));
                }
                end_turn(&chat, &moves).await?;
                chat.post(&format!("/{}", s.skill)).await?;
                turn_started(&chat).await?;
            }
            Step::EditSkill(s) => {
                let description = scenario
                    .skills
                    .get(&s.edit_skill)
                    .map(|k| k.description.clone())
                    .unwrap_or_default();
                write_skill(
                    &home,
                    &s.edit_skill,
                    &description,
                    Some(&s.permissions),
                    None,
                    &serde_json::Map::new(),
                )?;
            }
            Step::Compact(s) => {
                chat.log
                    .append(Body::Compacted(protocol::Compacted {
                        summary: s.compact.clone(),
                        through: chat.log.last_seq(),
                    }))
                    .await?;
            }
            Step::Keep(s) => {
                let all = chats.memories().list().await?;
                let found = all
                    .iter()
                    .find(|m| m.id == s.keep || m.text == s.keep)
                    .ok_or_else(|| {
                        Failure(format!(
                            "Step {index}: there's no memory \"{}\" to keep.",
                            s.keep
                        ))
                    })?;
                chats.memories().keep(&found.id, "owner").await?;
            }
            Step::DeleteSkill(s) => {
                let dir = home.root().join("skills").join(&s.delete_skill);
                let _ = std::fs::remove_dir_all(dir);
            }
            Step::StopHolding(s) => {
                let by = s.by.clone().unwrap_or_else(|| "person".to_owned());
                let result = if by == "key" {
                    Err(gateway::auth::PERSON_ONLY.to_owned())
                } else {
                    chat.stop_holding(&s.stop_holding)
                        .await
                        .map_err(|e| e.to_string())
                };
                stops.push(json!({
                    "step": index,
                    "skill": s.stop_holding,
                    "by": by,
                    "stopped": result.is_ok(),
                    "said": result.err(),
                }));
            }
            Step::Call(s) if s.call.tool == "delegate" => {
                need_turn(&chat, index)?;
                let id = format!("call-{index}");
                let chunk = Chunk::ToolCall {
                    id: id.clone(),
                    name: "delegate".into(),
                    input: s.call.input.clone(),
                };
                send(&moves, Move::Call(chunk)).await?;
                let helper = helper_of(&chats, &chat, index).await?;
                for (j, inner) in s.script.iter().flatten().enumerate() {
                    match inner {
                        Step::Call(c) => {
                            let inner_id = format!("call-{index}-{j}");
                            let chunk = Chunk::ToolCall {
                                id: inner_id.clone(),
                                name: c.call.tool.clone(),
                                input: if c.call.input.is_null() {
                                    json!({})
                                } else {
                                    c.call.input.clone()
                                },
                            };
                            send(&moves, Move::Call(chunk)).await?;
                            answer_until_finished(&helper, &inner_id, answer_of(c, index)?, index)
                                .await?;
                            let mut out = outcome(
                                &helper.log.events_after(0)?,
                                index,
                                &c.call.tool,
                                &inner_id,
                            );
                            out["helper_step"] = json!(j);
                            calls.push(out);
                        }
                        Step::Reply(r) => {
                            send(&moves, Move::Reply(r.reply.clone())).await?;
                            turn_ended(&helper).await?;
                        }
                        _ => {
                            return Err(Failure(format!(
                                "Step {index}: a helper's script has calls and replies only."
                            )))
                        }
                    }
                }
                end_turn(&helper, &moves).await?;
                answer_until_finished(&chat, &id, Answer::Deny, index).await?;
                calls.push(outcome(&chat.log.events_after(0)?, index, "delegate", &id));
            }
            Step::Call(s) => {
                need_turn(&chat, index)?;
                let id = format!("call-{index}");
                if let Some(returns) = &s.returns {
                    if let Ok(mut r) = toolbox.returns.lock() {
                        r.insert(id.clone(), returns.clone());
                    }
                }
                let answer = answer_of(s, index)?;
                if let Some(review) = &s.review {
                    let scripted = review_of(review, index)?;
                    if let Ok(mut r) = reviews.lock() {
                        r.push_back(scripted);
                    }
                }
                let mut input = if s.call.input.is_null() {
                    json!({})
                } else {
                    s.call.input.clone()
                };
                browser_ref(&chats, &chat, &mut input);
                let chunk = Chunk::ToolCall {
                    id: id.clone(),
                    name: s.call.tool.clone(),
                    input,
                };
                send(&moves, Move::Call(chunk)).await?;
                answer_until_finished(&chat, &id, answer, index).await?;
                calls.push(outcome(
                    &chat.log.events_after(0)?,
                    index,
                    &s.call.tool,
                    &id,
                ));
            }
        }
    }
    end_turn(&chat, &moves).await?;
    // Chromium closes its profile before the temporary home goes.
    if let Some(b) = chats.browser() {
        b.stop().await;
    }

    let view = chat.log.view();
    let marks: Vec<Value> = view
        .marks
        .iter()
        .map(|m| json!({ "source": m.source, "what": m.what, "call": m.call, "holds": m.holds() }))
        .collect();
    let holds: Vec<Value> = view
        .holds
        .iter()
        .map(|h| json!({ "skill": h.skill, "by": h.by, "from": h.from, "permissions": h.permissions }))
        .collect();
    let memories: Vec<Value> = chats
        .memories()
        .list()
        .await?
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "text": m.text,
                "state": m.state,
                "source": m.source.words(),
                "why": m.reasons.iter().map(|r| r.rule.clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let given: Vec<Value> = chat
        .log
        .events_after(0)?
        .iter()
        .filter_map(|e| match &e.body {
            Body::MemoriesUsed(u) => {
                Some(u.memories.iter().map(|m| json!(m.text)).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    let mut report = json!({ "calls": calls, "marks": marks, "holds": holds, "stops": stops, "memories": memories, "given": given });
    if keep.is_some() {
        report["chat"] = json!(chat.id);
    }
    Ok(report)
}

/// The chat an earlier chat's seeded memory names.
const EARLIER_CHAT: &str = "seededchat";

/// Writes the scenario's memories into the home before the chat starts.
fn seed_memories(home: &Home, scenario: &Scenario) -> Result<(), Failure> {
    let store = memory::Store::new(home.root());
    for m in &scenario.memories {
        let source = match m.source.as_deref() {
            None | Some("owner") => memory::Source::Owner,
            Some("import") => memory::Source::Import {
                from: "the scenario".to_owned(),
            },
            Some("chat") => memory::Source::Chat {
                chat: EARLIER_CHAT.to_owned(),
                marked: !m.read.is_empty(),
                read: m.read.clone(),
                owner_words: false,
            },
            Some(other) => {
                return Err(Failure(format!(
                    "A memory's source is owner, import or chat, not \"{other}\"."
                )))
            }
        };
        let verdict = match m.state.as_deref() {
            None => memory::check(&m.text, &source, scenario.safety.check_memories),
            Some("kept") => memory::Verdict::Kept(memory::Reason {
                rule: "memory.scenario".to_owned(),
                says: "the scenario kept it".to_owned(),
            }),
            Some("held") => memory::Verdict::Held(vec![memory::Reason {
                rule: "memory.scenario".to_owned(),
                says: "the scenario held it".to_owned(),
            }]),
            Some(other) => {
                return Err(Failure(format!(
                    "A memory's state is kept or held, not \"{other}\"."
                )))
            }
        };
        store.add(&m.text, source, &verdict, None)?;
    }
    Ok(())
}

/// Writes each scenario skill as `skills/<name>/SKILL.md` in the home.
fn install_skills(home: &Home, scenario: &Scenario) -> Result<(), Failure> {
    for (name, skill) in &scenario.skills {
        match &skill.front_matter {
            Some(raw) => {
                let dir = home.root().join("skills").join(name);
                std::fs::create_dir_all(&dir)?;
                let text = format!(
                    "---\n{}\n---\n{}\n",
                    raw.trim_end(),
                    skill.instructions.as_deref().unwrap_or("Follow the steps.")
                );
                std::fs::write(dir.join("SKILL.md"), text)?;
            }
            None => write_skill(
                home,
                name,
                &skill.description,
                skill.permissions.as_ref(),
                skill.instructions.as_deref(),
                &skill.other,
            )?,
        }
    }
    Ok(())
}

fn write_skill(
    home: &Home,
    name: &str,
    description: &str,
    permissions: Option<&Value>,
    instructions: Option<&str>,
    other: &serde_json::Map<String, Value>,
) -> Result<(), Failure> {
    let dir = home.root().join("skills").join(name);
    std::fs::create_dir_all(&dir)?;
    let mut front = serde_json::Map::new();
    front.insert("name".into(), json!(name));
    front.insert("description".into(), json!(description));
    if let Some(p) = permissions {
        front.insert("permissions".into(), p.clone());
    }
    for (key, value) in other {
        front.insert(key.clone(), value.clone());
    }
    // JSON is YAML: the front matter is written as one JSON object.
    let text = format!(
        "---\n{}\n---\n{}\n",
        Value::Object(front),
        instructions.unwrap_or("Follow the steps.")
    );
    std::fs::write(dir.join("SKILL.md"), text)?;
    Ok(())
}

/// A call step's `review`: the reviewer's raw reply, or a late one.
fn review_of(review: &Value, index: usize) -> Result<(String, Duration), Failure> {
    match review {
        Value::String(text) => Ok((text.clone(), Duration::ZERO)),
        Value::Object(o) => {
            let delay = o.get("delay_ms").and_then(Value::as_u64).ok_or_else(|| {
                Failure(format!(
                    "Step {index}: a review object needs \"delay_ms\" (a number of milliseconds)."
                ))
            })?;
            let text = o
                .get("reply")
                .and_then(Value::as_str)
                .unwrap_or(r#"{"verdict":"ask","risk":"low","evidence":[],"reason":"Late."}"#);
            Ok((text.to_owned(), Duration::from_millis(delay)))
        }
        _ => Err(Failure(format!(
            "Step {index}: \"review\" is the reviewer's reply as a string, or {{\"delay_ms\": n}}."
        ))),
    }
}

fn answer_of(step: &scenario::CallStep, index: usize) -> Result<Answer, Failure> {
    match step.answer.as_deref() {
        None => Ok(Answer::Deny),
        Some(a) => Answer::parse(a).ok_or_else(|| {
            Failure(format!(
                "Step {index}: \"{a}\" isn't an answer. Use once, always or deny."
            ))
        }),
    }
}

/// The helper a delegate call started, once its turn is under way.
async fn helper_of(chats: &Chats, parent: &Chat, index: usize) -> Result<Arc<Chat>, Failure> {
    let deadline = tokio::time::Instant::now() + STEP_TIME;
    loop {
        if let Some(h) = chats
            .children(&parent.id)
            .into_iter()
            .find(|h| h.log.with_view(|v| v.open_turn.is_some()))
        {
            return Ok(h);
        }
        if tokio::time::Instant::now() > deadline {
            return Err(Failure(format!("Step {index}: the helper didn't start.")));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn need_turn(chat: &Chat, index: usize) -> Result<(), Failure> {
    if chat.log.with_view(|v| v.open_turn.is_none()) {
        return Err(Failure(format!(
            "Step {index} is the model acting, but no message has started a turn. Put an owner, person or routine step before it."
        )));
    }
    Ok(())
}

async fn send(moves: &mpsc::Sender<Move>, m: Move) -> Result<(), Failure> {
    moves
        .send(m)
        .await
        .map_err(|_| Failure("The replay's model stopped listening.".into()))
}

/// Waits until `done` holds for the chat's events.
async fn until(
    chat: &Chat,
    what: &str,
    done: impl Fn(&[Event]) -> bool,
) -> Result<Vec<Event>, Failure> {
    let mut follow = chat.log.follow();
    let deadline = tokio::time::Instant::now() + STEP_TIME;
    loop {
        let events = chat.log.events_after(0)?;
        if done(&events) {
            return Ok(events);
        }
        if tokio::time::timeout_at(deadline, follow.recv())
            .await
            .is_err()
        {
            // Say why when the turn ended under it.
            let ended = events.iter().rev().find_map(|e| match &e.body {
                Body::TurnEnded(t) => t.error.clone(),
                _ => None,
            });
            let why = match ended {
                Some(error) if chat.log.with_view(|v| v.open_turn.is_none()) => {
                    format!(" The turn had ended: {error}")
                }
                _ => String::new(),
            };
            return Err(Failure(format!(
                "Replay waited {} s for {what}, and it didn't come.{why}",
                STEP_TIME.as_secs()
            )));
        }
    }
}

async fn turn_started(chat: &Chat) -> Result<(), Failure> {
    until(chat, "a turn to start", |_| {
        chat.log.with_view(|v| v.open_turn.is_some())
    })
    .await?;
    Ok(())
}

async fn turn_ended(chat: &Chat) -> Result<(), Failure> {
    until(chat, "the turn to end", |_| {
        chat.log.with_view(|v| v.open_turn.is_none())
    })
    .await?;
    Ok(())
}

async fn end_turn(chat: &Chat, moves: &mpsc::Sender<Move>) -> Result<(), Failure> {
    if chat.log.with_view(|v| v.open_turn.is_some()) {
        send(moves, Move::End).await?;
        turn_ended(chat).await?;
    }
    Ok(())
}

/// Answers the call's question (if it asks) and waits for its result.
async fn answer_until_finished(
    chat: &Chat,
    id: &str,
    answer: Answer,
    index: usize,
) -> Result<(), Failure> {
    let mut answered = false;
    loop {
        let events = until(chat, &format!("step {index}'s call to finish"), |events| {
            events.iter().any(|e| match &e.body {
                Body::ToolFinished(f) => f.call == id,
                Body::PermissionRequested(p) => p.call == id && !answered,
                _ => false,
            })
        })
        .await?;
        if events
            .iter()
            .any(|e| matches!(&e.body, Body::ToolFinished(f) if f.call == id))
        {
            return Ok(());
        }
        let ask = events.iter().find_map(|e| match &e.body {
            Body::PermissionRequested(p) if p.call == id => Some(p.ask.clone()),
            _ => None,
        });
        if let Some(ask) = ask {
            chat.answer(&ask, answer, "owner".into()).await?;
            answered = true;
        }
    }
}

/// What happened to one call, from the log.
fn outcome(events: &[Event], index: usize, tool: &str, id: &str) -> Value {
    let asked = events.iter().rev().find_map(|e| match &e.body {
        Body::PermissionRequested(p) if p.call == id => Some(p),
        _ => None,
    });
    let finished = events.iter().rev().find_map(|e| match &e.body {
        Body::ToolFinished(f) if f.call == id => Some(f),
        _ => None,
    });
    let detail = finished.and_then(|f| f.detail.as_ref());
    let denied = detail.and_then(|d| d.get("denied")).cloned();
    let invalid = detail.and_then(|d| d.get("invalid")).is_some();
    let answer = asked.and_then(|a| {
        events.iter().find_map(|e| match &e.body {
            Body::PermissionAnswered(p) if p.ask == a.ask => Some(p.answer),
            _ => None,
        })
    });
    let judged = events.iter().rev().find_map(|e| match &e.body {
        Body::ReviewJudged(j) if j.call == id => Some(j),
        _ => None,
    });
    let (decision, ran, why) = match (asked, denied) {
        (Some(a), _) => (
            "ask",
            matches!(answer, Some(Answer::Once | Answer::Always)),
            json!(a.why),
        ),
        (None, Some(why)) => ("deny", false, why),
        (None, None) if invalid => ("invalid", false, json!([])),
        (None, None) => ("allow", true, json!([])),
    };
    json!({
        "step": index,
        "tool": tool,
        "decision": decision,
        "ran": ran,
        "why": why,
        "note": asked.and_then(|a| a.note.clone()),
        "always": asked.and_then(|a| a.always.clone()),
        "answer": answer,
        "provenance": asked.map(|a| json!(a.provenance)).unwrap_or(json!([])),
        "output": finished.map(|f| f.output.chars().take(300).collect::<String>()),
        "review": judged.map(|j| j.outcome.as_str()),
        "review_problem": judged.and_then(|j| j.problem.clone()),
    })
}

fn print_report(report: &Value) {
    for call in report["calls"].as_array().into_iter().flatten() {
        let why: Vec<&str> = call["why"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let why = if why.is_empty() {
            String::new()
        } else {
            format!(" [{}]", why.join(", "))
        };
        let ran = if call["ran"] == true {
            "ran"
        } else {
            "not run"
        };
        let answer = call["answer"]
            .as_str()
            .map(|a| format!(" (answered {a})"))
            .unwrap_or_default();
        let review = match (call["review"].as_str(), call["review_problem"].as_str()) {
            (Some(r), Some(p)) => format!(" (reviewer: {r}, {p})"),
            (Some(r), None) => format!(" (reviewer: {r})"),
            _ => String::new(),
        };
        println!(
            "step {:<3} {:<20} {}{why} → {ran}{answer}{review}",
            call["step"],
            call["tool"].as_str().unwrap_or(""),
            call["decision"].as_str().unwrap_or("")
        );
        if let Some(note) = call["note"].as_str() {
            println!("          {note}");
        }
    }
    for mark in report["marks"].as_array().into_iter().flatten() {
        let held = if mark["holds"] == true {
            ""
        } else {
            " (no longer holds)"
        };
        println!(
            "marked: {} {}{held}",
            mark["source"].as_str().unwrap_or(""),
            mark["what"].as_str().unwrap_or("")
        );
    }
    for text in report["given"].as_array().into_iter().flatten() {
        println!("given: {}", text.as_str().unwrap_or(""));
    }
    for m in report["memories"].as_array().into_iter().flatten() {
        let why: Vec<&str> = m["why"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        println!(
            "memory {} ({}, from {}) [{}]: {}",
            m["id"].as_str().unwrap_or(""),
            m["state"].as_str().unwrap_or(""),
            m["source"].as_str().unwrap_or(""),
            why.join(", "),
            m["text"].as_str().unwrap_or("")
        );
    }
    for stop in report["stops"].as_array().into_iter().flatten() {
        let what = match stop["said"].as_str() {
            Some(said) => format!("refused: {said}"),
            None => "stopped".to_owned(),
        };
        println!(
            "step {:<3} stop holding {} (by a {}): {what}",
            stop["step"],
            stop["skill"].as_str().unwrap_or(""),
            stop["by"].as_str().unwrap_or("person"),
        );
    }
    for hold in report["holds"].as_array().into_iter().flatten() {
        let from = hold["from"]
            .as_str()
            .map(|f| format!(" from {f}"))
            .unwrap_or_default();
        println!(
            "held to: {} ({}{from})",
            hold["skill"].as_str().unwrap_or(""),
            hold["by"].as_str().unwrap_or("")
        );
    }
    if let Some(chat) = report["chat"].as_str() {
        println!("chat: {chat}");
    }
}

/// A scenario names a browser control by what it is (`"ref": "@button
/// Send"`: its role, then its name), since Chromium's own ids aren't known
/// before the page is shown; replay gives the model the ref the chat's page
/// has for it now. Anything else is left as written.
fn browser_ref(chats: &Chats, chat: &conversations::Chat, input: &mut Value) {
    let Some(wanted) = input
        .get("ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('@'))
    else {
        return;
    };
    let (role, name) = wanted.split_once(' ').unwrap_or((wanted, ""));
    let found = chats
        .browser()
        .and_then(|b| b.known(&chat.id))
        .and_then(|k| {
            k.elements
                .values()
                .find(|e| e.role == role && e.name == name)
                .map(|e| e.r#ref.clone())
        });
    if let Some(r) = found {
        input["ref"] = json!(r);
    }
}
