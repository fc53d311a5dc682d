//! What each tool is, as engines are told.

use protocol::ToolSpec;
use serde_json::json;

fn spec(name: &str, description: &str, schema: serde_json::Value) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        schema,
    }
}

fn path_only(what: &str) -> serde_json::Value {
    json!({
        "type": "object",
        "properties": { "path": { "type": "string", "description": what } },
        "required": ["path"]
    })
}

pub fn use_skill() -> ToolSpec {
    spec(
        "use_skill",
        "Load a skill's instructions into this chat (the skills you can use are listed in your instructions), or read one of its files.",
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "description": "The skill's name." },
                "file": { "type": "string", "description": "One of the skill's files, to read instead of its instructions." }
            },
            "required": ["name"]
        }),
    )
}

pub fn specs(search: bool) -> Vec<ToolSpec> {
    let mut all = vec![
        spec(
            "read_file",
            "Read a text file. Paths are relative to the work folder, or absolute.",
            path_only("The file to read."),
        ),
        spec(
            "list_files",
            "List a folder's files and folders.",
            path_only("The folder to list (\".\" for the work folder)."),
        ),
        spec(
            "search_files",
            "Search the text of files under a folder for a regular expression. Returns matching lines as path:line: text.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": { "type": "string", "description": "A regular expression (Rust syntax)." },
                    "path": { "type": "string", "description": "The folder to search (default: the work folder)." }
                },
                "required": ["pattern"]
            }),
        ),
        spec(
            "write_file",
            "Write a file, replacing what it had. Creates missing folders.",
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string" },
                    "content": { "type": "string" }
                },
                "required": ["path", "content"]
            }),
        ),
        spec(
            "edit_file",
            "Replace one exact piece of text in a file with another. The old text must appear exactly once.",
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string" },
                    "old": { "type": "string", "description": "The exact text to replace, including whitespace." },
                    "new": { "type": "string", "description": "What to put in its place." }
                },
                "required": ["path", "old", "new"]
            }),
        ),
        spec(
            "web_fetch",
            "Read a web page (http or https) as text.",
            json!({
                "type": "object",
                "properties": { "url": { "type": "string" } },
                "required": ["url"]
            }),
        ),
        spec(
            "run_command",
            "Run a shell command (bash) in the work folder and return its output and exit code. The owner may be asked first.",
            json!({
                "type": "object",
                "properties": {
                    "command": { "type": "string" },
                    "dangerouslyDisableSandbox": {
                        "type": "boolean",
                        "description": "Run outside the sandbox, with the person's full access. Always asks. Only when the command can't work inside it."
                    }
                },
                "required": ["command"]
            }),
        ),
    ];
    if search {
        all.push(spec(
            "web_search",
            "Search the web. Returns titles, addresses and snippets.",
            json!({
                "type": "object",
                "properties": { "query": { "type": "string" } },
                "required": ["query"]
            }),
        ));
    }
    all
}
