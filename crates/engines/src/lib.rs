//! Engines: what proposes the assistant's words and tool calls.
//!
//! A turn is a series of steps. Each step hands the engine the chat so far
//! (as [`Item`]s) and the tools it may call; the engine streams back text and
//! tool calls as [`Chunk`]s and returns. The turn loop runs the calls, logs
//! their results and steps again until a step asks for no tools. Engines are
//! stateless between steps, which is how API providers work, and which lets a
//! restart pick a chat up from its log alone.

pub mod boxing;
pub mod claude_code;
pub mod codex;
mod engine;
mod mock;
mod mock_artifacts;
pub mod native;
pub mod providers;
mod scripted;

pub use engine::{BoxFuture, Chunk, Engine, EngineError, Item, StepRequest, ToolSpec};
pub use mock::{mock_reply, mock_step, MockEngine, MockStep};
pub use native::{
    Gate, NativeApp, NativeCall, NativeEngine, NativeEvent, NativeTurn, Quick, Verdict,
};
pub use scripted::{ScriptStep, ScriptedEngine, ScriptedReview};
