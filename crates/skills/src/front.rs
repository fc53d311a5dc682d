//! SKILL.md: YAML front matter between `---` lines, then the instructions.
//! Keys this version doesn't know are kept; broken front matter is a
//! sentence, not a crash.

use serde_json::{Map, Value};

use crate::permissions;
use protocol::SkillPermissions;

#[derive(Debug, Clone, PartialEq)]
pub struct Front {
    pub name: Option<String>,
    pub description: Option<String>,
    pub permissions: SkillPermissions,
    /// Whether the skill declared anything (`permissions` or `allowed-tools`).
    pub declared: bool,
    /// Every key, as read (unknown ones included).
    pub keys: Map<String, Value>,
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontError {
    NoFrontMatter,
    Unclosed,
    Yaml(String),
    NotAMap,
}

impl std::fmt::Display for FrontError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrontError::NoFrontMatter => f.write_str(
                "SKILL.md has no front matter: it should start with a --- line, then name: and description:, then another --- line.",
            ),
            FrontError::Unclosed => f.write_str("SKILL.md's front matter has no closing --- line."),
            FrontError::Yaml(why) => write!(f, "SKILL.md's front matter isn't valid YAML: {why}"),
            FrontError::NotAMap => f.write_str("SKILL.md's front matter should be keys and values (name: …, description: …)."),
        }
    }
}

/// Front matter this long is a skill hiding something in it.
const MAX_FRONT: usize = 64 * 1024;

pub fn parse(text: &str) -> Result<Front, FrontError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(FrontError::NoFrontMatter)?;
    let mut yaml_end = None;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            yaml_end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let (yaml_end, body_start) = yaml_end.ok_or(FrontError::Unclosed)?;
    let yaml = &rest[..yaml_end];
    if yaml.len() > MAX_FRONT {
        return Err(FrontError::Yaml("it is too long".into()));
    }
    let value: Value = if yaml.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_saphyr::from_str(yaml)
            .map_err(|e| FrontError::Yaml(e.to_string().lines().next().unwrap_or("").to_owned()))?
    };
    let Value::Object(keys) = value else {
        return Err(FrontError::NotAMap);
    };
    let text_of = |k: &str| {
        keys.get(k)
            .and_then(Value::as_str)
            .map(|s| s.trim().to_owned())
    };
    let (permissions, declared) = permissions::from_front(&keys);
    Ok(Front {
        name: text_of("name"),
        description: text_of("description"),
        permissions,
        declared,
        body: rest[body_start..].to_owned(),
        keys,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::{FileAccess, WebAccess};

    #[test]
    fn reads_front_matter_and_keeps_unknown_keys() {
        let f = parse("---\nname: quick-setup\ndescription: Sets things up\npermissions:\n  commands: [git]\n  files: write\nlicense: MIT\n---\n# Steps\nDo it.\n").unwrap();
        assert_eq!(f.name.as_deref(), Some("quick-setup"));
        assert_eq!(f.permissions.commands, ["git"]);
        assert_eq!(f.permissions.files, FileAccess::Write);
        assert_eq!(
            f.permissions.web,
            WebAccess::Read,
            "what isn't said is the usual"
        );
        assert_eq!(f.keys["license"], "MIT");
        assert_eq!(f.body, "# Steps\nDo it.\n");
        assert!(f.declared);
    }

    #[test]
    fn broken_front_matter_gets_a_sentence() {
        assert_eq!(parse("# no front matter"), Err(FrontError::NoFrontMatter));
        assert_eq!(parse("---\nname: x\n"), Err(FrontError::Unclosed));
        assert!(matches!(
            parse("---\nname: [unclosed\n---\n"),
            Err(FrontError::Yaml(_))
        ));
        assert_eq!(parse("---\n- a\n- b\n---\n"), Err(FrontError::NotAMap));
        assert!(parse("---\nname: x\n---\n").unwrap().body.is_empty());
        assert!(parse("\u{feff}---\r\nname: x\r\n---\r\nbody").is_ok());
    }
}
