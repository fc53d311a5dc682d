//! The reviewed table of programs Auto mode runs without asking anyone,
//! when the command is sealed. One place, read by [`crate::fast_path`]; a
//! program is added here only after reading what every option of it can do.
//!
//! Read-only programs look; build and test programs write only where the box
//! lets them (the work folder). Options that make a looking program write a
//! file or run another program are listed beside it and leave the fast path.

/// A program on the table.
pub struct Entry {
    pub program: &'static str,
    /// Its first word must be one of these (`git status`); empty: any.
    pub subcommands: &'static [&'static str],
    /// Options that take it off the fast path (a prefix match, so
    /// `--output` catches `--output=file`).
    pub refused: &'static [&'static str],
}

const fn any(program: &'static str) -> Entry {
    Entry {
        program,
        subcommands: &[],
        refused: &[],
    }
}

pub const TABLE: &[Entry] = &[
    any("ls"),
    any("cat"),
    any("head"),
    any("tail"),
    any("wc"),
    any("pwd"),
    any("echo"),
    any("grep"),
    any("tree"),
    any("file"),
    any("stat"),
    any("du"),
    any("diff"),
    any("uniq"),
    any("cut"),
    any("which"),
    Entry {
        program: "rg",
        subcommands: &[],
        // --pre runs a program on every file it searches.
        refused: &["--pre"],
    },
    Entry {
        program: "find",
        subcommands: &[],
        refused: &[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls",
        ],
    },
    Entry {
        program: "sort",
        subcommands: &[],
        refused: &["-o", "--output"],
    },
    Entry {
        program: "git",
        subcommands: &[
            "status",
            "log",
            "diff",
            "show",
            "rev-parse",
            "ls-files",
            "blame",
        ],
        // --output writes a file; an external diff program runs whatever
        // the repository's config names.
        refused: &["--output", "--ext-diff", "-c", "--exec-path"],
    },
    Entry {
        program: "cargo",
        subcommands: &[
            "build", "test", "check", "clippy", "fmt", "nextest", "metadata", "tree",
        ],
        refused: &["--config", "-Z"],
    },
    Entry {
        program: "npm",
        subcommands: &["test", "ls"],
        refused: &[],
    },
    Entry {
        program: "go",
        subcommands: &["build", "test", "vet"],
        refused: &["-exec", "-toolexec"],
    },
    any("pytest"),
];

pub fn entry(program: &str) -> Option<&'static Entry> {
    TABLE.iter().find(|e| e.program == program)
}
