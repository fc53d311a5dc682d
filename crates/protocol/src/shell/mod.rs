//! A command read the way bash will read it, once, before any rule looks.
//!
//! Every rule that judges a command (the download rule, the fence around
//! Conch's own powers, Auto's categories, skill holds, binding) reads the
//! same [`Reading`]: each simple command with its words after quote
//! removal, backslashes, `$'…'` escapes, brace expansion, the tilde, the
//! parameters whose value is known in `bash -c` (`$@`, `$*`, `$1`… are
//! empty, `$IFS` splits, `$HOME` is the home folder), with the program found
//! past assignments and wrappers, and the commands inside substitutions,
//! subshells, `sh -c` strings, `eval`, `find -exec` and here-documents fed
//! to a shell read as commands too.
//!
//! What it can't know it says: a word with a substitution or an unknown
//! variable is `computed`, and an unquoted `*`, `?` or `[` is a pattern
//! (rules ask whether it *could be* a name). Aliases and functions defined
//! earlier in the same command aren't followed, and neither is code a
//! program builds for itself (`python3 -c`): for those the box is the
//! boundary.

mod glob;
mod parse;
mod program;
pub mod respell;
mod word;

pub use glob::{could_start_with, matches as glob_matches};
pub use program::is_assignment;
pub use word::{Context, Word};

/// One simple command: its words, with computed parts kept as written.
pub type Segment = Vec<String>;

/// Nested code (`sh -c`, `eval`…) is read this deep, no deeper.
const MAX_NESTED: usize = 6;

/// A redirection: its operator and target (a here-document's body, as it is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub op: String,
    pub target: Word,
}

/// One simple command after expansion.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Simple {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Where each word that could be the program is (read once).
    chain: Vec<usize>,
}

impl Simple {
    /// The program word (as its last path part), when there is one: past
    /// assignments and wrappers.
    pub fn program(&self) -> Option<Word> {
        let at = *self.chain.last()?;
        Some(self.words[at].base())
    }

    /// Where each word that could be the program is in `words`.
    pub fn chain_indices(&self) -> &[usize] {
        &self.chain
    }

    /// Where the program word is in `words`.
    pub fn program_index(&self) -> Option<usize> {
        self.chain.last().copied()
    }

    /// Every word that could be the program (a pattern that could be a
    /// wrapper keeps the wrapped program too), as last path parts.
    pub fn candidates(&self) -> Vec<Word> {
        self.chain.iter().map(|&i| self.words[i].base()).collect()
    }

    /// Whether this command could run `name`.
    pub fn could_run(&self, name: &str) -> bool {
        self.candidates()
            .iter()
            .any(|w| !w.computed && w.could_be(name))
    }

    /// The words after the program.
    pub fn args(&self) -> &[Word] {
        match self.program_index() {
            Some(at) => &self.words[at + 1..],
            None => &[],
        }
    }

    /// The assignments before the program (`PATH=/x cmd`).
    pub fn assignments(&self) -> Vec<(&str, &Word)> {
        self.words
            .iter()
            .take_while(|w| is_assignment(&w.text))
            .filter_map(|w| w.text.split_once('=').map(|(name, _)| (name, w)))
            .collect()
    }

    pub fn texts(&self) -> Segment {
        self.words.iter().map(|w| w.text.clone()).collect()
    }
}

/// A whole command, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reading {
    /// Every simple command, nested ones included, in the order the shell
    /// meets them (a substitution before the command that uses it).
    pub simples: Vec<Simple>,
    /// Some code handed to another shell couldn't be read (`sh -c "$X"`).
    pub opaque: bool,
}

impl Reading {
    /// Whether any command in it could run `name`.
    pub fn could_run(&self, name: &str) -> bool {
        self.simples.iter().any(|s| s.could_run(name))
    }

    /// Whether some program is computed (`$CMD x`, `$(which x) y`).
    pub fn computed_program(&self) -> bool {
        self.simples
            .iter()
            .any(|s| s.candidates().iter().any(|w| w.computed))
    }

    /// Every word of every command (programs, arguments, redirect targets).
    pub fn all_words(&self) -> impl Iterator<Item = &Word> {
        self.simples
            .iter()
            .flat_map(|s| s.words.iter().chain(s.redirects.iter().map(|r| &r.target)))
    }
}

/// Reads `command` as bash will.
pub fn read(command: &str, ctx: &Context<'_>) -> Reading {
    let mut reading = Reading::default();
    read_into(command, ctx, 0, &mut reading);
    reading
}

fn read_into(command: &str, ctx: &Context<'_>, depth: usize, reading: &mut Reading) {
    for raw in parse::parse(command) {
        let mut simple = Simple {
            chain: Vec::new(),
            words: raw
                .words
                .iter()
                .flat_map(|atoms| word::expand(atoms, ctx))
                .collect(),
            redirects: raw
                .redirects
                .iter()
                .map(|(op, atoms)| Redirect {
                    op: op.clone(),
                    target: word::expand(atoms, ctx)
                        .into_iter()
                        .next()
                        .unwrap_or_default(),
                })
                .collect(),
        };
        simple.chain = program::program_chain(&simple.words);
        let handed = program::handed_code(&simple);
        if simple.words.is_empty() && simple.redirects.is_empty() {
            continue;
        }
        reading.simples.push(simple);
        for code in handed {
            match code {
                Some(code) if depth < MAX_NESTED => read_into(&code, ctx, depth + 1, reading),
                _ => reading.opaque = true,
            }
        }
    }
}

/// Every simple command in `command`, in order, including nested ones:
/// each as its words' texts.
pub fn segments(command: &str) -> Vec<Segment> {
    read(command, &Context::default())
        .simples
        .iter()
        .filter(|s| !s.words.is_empty())
        .map(Simple::texts)
        .collect()
}

/// The programs `command` runs, repeats removed: a substitution's programs
/// come before the command that uses them, as the shell runs them.
pub fn programs(command: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for simple in read(command, &Context::default()).simples {
        if let Some(program) = simple.program() {
            if !found.contains(&program.text) {
                found.push(program.text);
            }
        }
    }
    found
}

/// The program a simple command (as word texts) runs.
pub fn program_of(segment: &[String]) -> Option<String> {
    let words: Vec<Word> = segment
        .iter()
        .map(|t| Word {
            text: t.clone(),
            computed: t.contains("$(") || t.contains('`') || t.starts_with('$'),
            glob: None,
        })
        .collect();
    let at = *program::program_chain(&words).last()?;
    Some(words[at].base().text)
}

#[cfg(test)]
mod tests;
