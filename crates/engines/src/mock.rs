//! The built-in engine for when no provider is configured: keyword-driven and
//! deterministic, so a demo and a test see the same thing every time. It
//! needs no network and no key.

use std::time::Duration;

use tokio::sync::mpsc;

use crate::engine::{BoxFuture, Chunk, Engine, EngineError, Item, StepRequest};

pub struct MockEngine {
    /// Pause between streamed words, so a page shows a reply arriving.
    pace: Duration,
}

impl MockEngine {
    pub fn new(pace: Duration) -> MockEngine {
        MockEngine { pace }
    }
}

impl Default for MockEngine {
    fn default() -> Self {
        MockEngine::new(Duration::from_millis(15))
    }
}

/// The reply to the owner's latest words.
pub fn mock_reply(request: &StepRequest) -> String {
    let last = request.items.iter().rev().find_map(|item| match item {
        Item::Owner(text) => Some(text.as_str()),
        Item::Other { text, .. } => Some(text.as_str()),
        _ => None,
    });
    let Some(text) = last else {
        return "Hello! There's nothing to answer yet.".to_owned();
    };
    let lower = text.to_lowercase();
    let has = |words: &[&str]| {
        lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| words.contains(&w))
    };
    if has(&["hello", "hi", "hey"]) {
        return "Hello! I'm Conch, running on the built-in mock engine. \
                I answer from a short list of keywords, so you can try the app without a provider. \
                Say \"help\" to see what I understand."
            .to_owned();
    }
    if has(&["help"]) {
        return "I'm the mock engine: no model, no network. I understand:\n\n\
                - **hello**: a greeting\n\
                - **help**: this list\n\
                - anything else: I repeat it back\n\n\
                To talk to a real model, add a provider with `conch providers add`."
            .to_owned();
    }
    let quoted: String = text.chars().take(200).collect();
    let more = if text.chars().count() > 200 {
        "…"
    } else {
        ""
    };
    format!(
        "You said: \"{quoted}{more}\". I'm the mock engine, so I can only echo and demo. \
         Add a provider with `conch providers add` to talk to a real model."
    )
}

impl Engine for MockEngine {
    fn name(&self) -> &str {
        "mock"
    }

    fn step<'a>(
        &'a self,
        request: StepRequest,
        out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        Box::pin(async move {
            let reply = mock_reply(&request);
            for word in reply.split_inclusive(' ') {
                if !self.pace.is_zero() {
                    tokio::time::sleep(self.pace).await;
                }
                if out.send(Chunk::Text(word.to_owned())).await.is_err() {
                    return Err(EngineError::Stopped);
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(text: &str) -> String {
        mock_reply(&StepRequest {
            items: vec![Item::Owner(text.into())],
            tools: vec![],
        })
    }

    #[test]
    fn answers_by_keyword() {
        assert!(ask("Hi there").starts_with("Hello! I'm Conch"));
        assert!(ask("can you help?").contains("I understand"));
        assert!(ask("what is 2+2").contains("You said: \"what is 2+2\""));
        // "this" contains "hi" but isn't the word.
        assert!(ask("this").starts_with("You said"));
    }

    #[test]
    fn is_deterministic_and_streams_the_whole_reply() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let engine = MockEngine::new(Duration::ZERO);
        let (tx, mut rx) = mpsc::channel(8);
        let request = StepRequest {
            items: vec![Item::Owner("hello".into())],
            tools: vec![],
        };
        let text = rt.block_on(async {
            let run = engine.step(request.clone(), tx);
            let collect = async {
                let mut text = String::new();
                while let Some(Chunk::Text(t)) = rx.recv().await {
                    text.push_str(&t);
                }
                text
            };
            let (done, text) = tokio::join!(run, collect);
            done.unwrap();
            text
        });
        assert_eq!(text, mock_reply(&request));
    }
}
