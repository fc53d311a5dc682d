//! One control on a page, as a snapshot found it, and what using it does:
//! whether it is a password field, and whether a click sends (ADR 0144's
//! communication click) or leads somewhere.
//!
//! Every click that submits a form sends, whatever its button says: that
//! is the rule that holds by construction. A control's words (or its
//! form's action) saying send, post, pay… make a click that a page's own
//! script handles a send too.

use crate::words::{says_sends, Says};

/// Where a click sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sends {
    /// The form's action, resolved; empty when the page's script sends.
    pub to: String,
    /// GET or POST, for a form.
    pub method: String,
    pub spends: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub r#ref: String,
    pub role: String,
    pub name: String,
    /// A password field: typed into only with the owner's yes, each time.
    pub password: bool,
    /// A field whose value the reviewer never sees (a password, a token, a
    /// card number, a one-time code).
    pub secret: bool,
    /// Text can be typed into it.
    pub editable: bool,
    /// A field the page's own script reads as it is typed into (a
    /// listener for input or keys on it, an ancestor, the document or the
    /// window): typing there can send.
    pub listened: bool,
    pub sends: Option<Sends>,
    /// A link's address, resolved.
    pub link: Option<String>,
}

impl Element {
    /// `button "Send"`, as questions and bindings name it.
    pub fn describe(&self) -> String {
        let name: String = self.name.chars().take(120).collect();
        format!("{} \"{}\"", self.role, name.replace('"', "'"))
    }

    /// Everything a click or typing depends on, as one line: what the
    /// approval is bound to (a control that became a password field, or
    /// whose form now sends elsewhere, is another control).
    pub fn identity(&self) -> String {
        let mut out = format!("{} {}", self.r#ref, self.describe());
        if self.password {
            out.push_str(" password");
        }
        if self.listened {
            out.push_str(" listened");
        }
        if let Some(s) = &self.sends {
            out.push_str(&format!(" sends {} {}", s.method, s.to));
        }
        if let Some(l) = &self.link {
            out.push_str(&format!(" to {l}"));
        }
        out
    }
}

/// What the DOM says about an element, for [`judge`].
#[derive(Debug, Clone, Default)]
pub struct Facts<'a> {
    pub tag: &'a str,
    /// The `type` attribute, lowercased.
    pub input_type: &'a str,
    /// The field's own words besides its name (`name`, `id`,
    /// `autocomplete`), for secret fields.
    pub field_words: String,
    /// The form it belongs to: its action (resolved) and method.
    pub form: Option<(String, String)>,
    /// A submit button's own `formaction` / `formmethod`, resolved.
    pub form_override: (Option<String>, Option<String>),
    pub href: Option<String>,
}

/// Roles that are links: they lead somewhere, they don't send.
fn is_link(role: &str, tag: &str) -> bool {
    role == "link" || tag == "a"
}

fn secret_words(words: &str) -> bool {
    let w = crate::words::fold(words);
    [
        "password",
        "passwd",
        "token",
        "secret",
        "api key",
        "apikey",
        "otp",
        "one time",
        "one-time",
        "2fa",
        "mfa",
        "cvc",
        "cvv",
        "card number",
        "cc number",
        "cc-number",
        "iban",
        "ssn",
        "pin",
    ]
    .iter()
    .any(|k| w.split(' ').any(|part| part == *k) || (k.contains(' ') && w.contains(k)))
        || w.contains("password")
        || w.contains("cc-csc")
        || w.contains("cc-number")
        || w.contains("one-time-code")
}

/// The element `r#ref`, named `name` with `role` by the accessibility
/// tree, and what the DOM says of it.
pub fn judge(r#ref: &str, role: &str, name: &str, facts: &Facts<'_>) -> Element {
    let tag = facts.tag;
    let password = tag == "input" && facts.input_type == "password";
    let editable = matches!(role, "textbox" | "searchbox" | "combobox" | "spinbutton")
        || tag == "textarea"
        || (tag == "input"
            && !matches!(
                facts.input_type,
                "submit"
                    | "button"
                    | "reset"
                    | "image"
                    | "checkbox"
                    | "radio"
                    | "file"
                    | "hidden"
                    | "range"
                    | "color"
            ));
    let secret = password || (editable && secret_words(&format!("{name} {}", facts.field_words)));
    let submits = facts.form.is_some()
        && ((tag == "button" && matches!(facts.input_type, "" | "submit"))
            || (tag == "input" && matches!(facts.input_type, "submit" | "image")));
    let link = is_link(role, tag).then(|| facts.href.clone()).flatten();
    let by_form = submits.then(|| {
        let (action, method) = facts.form.clone().unwrap_or_default();
        let to = facts.form_override.0.clone().unwrap_or(action);
        let method = facts
            .form_override
            .1
            .clone()
            .unwrap_or(method)
            .to_ascii_uppercase();
        (
            to,
            if method.is_empty() {
                "GET".to_owned()
            } else {
                method
            },
        )
    });
    // Links lead somewhere; buttons and other controls can send by their
    // page's script, which their words (or their form's action) tell.
    let said = if link.is_some() || editable {
        None
    } else {
        let action = by_form
            .as_ref()
            .map(|(to, _)| url_path(to))
            .unwrap_or_default();
        says_sends(name).or_else(|| says_sends(&action))
    };
    let sends = match (by_form, said) {
        (Some((to, method)), said) => Some(Sends {
            spends: said == Some(Says::Spends),
            to,
            method,
        }),
        (None, Some(s)) => Some(Sends {
            to: String::new(),
            method: String::new(),
            spends: s == Says::Spends,
        }),
        (None, None) => None,
    };
    Element {
        r#ref: r#ref.to_owned(),
        role: role.to_owned(),
        name: name.to_owned(),
        password,
        secret,
        editable,
        // Set from the page's listeners once the snapshot is built.
        listened: false,
        sends,
        link,
    }
}

/// The path and query of an address: what its words are in.
fn url_path(url: &str) -> String {
    url.split_once("://")
        .map(|(_, rest)| rest.split_once('/').map_or("", |(_, p)| p).to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(action: &str, method: &str) -> Option<(String, String)> {
        Some((action.to_owned(), method.to_owned()))
    }

    #[test]
    fn what_a_click_does() {
        // Every submit button of a form sends, whatever it says.
        let go = judge(
            "e1",
            "button",
            "Continue",
            &Facts {
                tag: "button",
                form: form("https://evil.example/collect", "post"),
                ..Facts::default()
            },
        );
        assert_eq!(
            go.sends,
            Some(Sends {
                to: "https://evil.example/collect".into(),
                method: "POST".into(),
                spends: false
            })
        );
        // A button's own formaction wins.
        let over = judge(
            "e2",
            "button",
            "Send",
            &Facts {
                tag: "button",
                input_type: "submit",
                form: form("https://shop.example/send", "post"),
                form_override: (Some("https://drop.example/x".into()), None),
                ..Facts::default()
            },
        );
        assert_eq!(
            over.sends.map(|s| s.to),
            Some("https://drop.example/x".into())
        );
        // A plain button in a form doesn't submit; a script button named
        // Send sends, to where only the page knows.
        let plain = judge(
            "e3",
            "button",
            "Show more",
            &Facts {
                tag: "button",
                input_type: "button",
                form: form("https://a.example/", "get"),
                ..Facts::default()
            },
        );
        assert_eq!(plain.sends, None);
        let script = judge(
            "e4",
            "button",
            "Send",
            &Facts {
                tag: "div",
                ..Facts::default()
            },
        );
        assert_eq!(script.sends.map(|s| s.to), Some(String::new()));
        let pay = judge(
            "e5",
            "button",
            "Pay €20",
            &Facts {
                tag: "button",
                ..Facts::default()
            },
        );
        assert!(pay.sends.is_some_and(|s| s.spends));
        // A form whose action says send, behind a button that says nothing.
        let quiet = judge(
            "e6",
            "button",
            "→",
            &Facts {
                tag: "input",
                input_type: "submit",
                form: form("https://mail.example/compose/send", "post"),
                ..Facts::default()
            },
        );
        assert!(quiet.sends.is_some());
        // A link leads; it doesn't send, whatever it says.
        let link = judge(
            "e7",
            "link",
            "Send money",
            &Facts {
                tag: "a",
                href: Some("https://bank.example/send".into()),
                ..Facts::default()
            },
        );
        assert_eq!(link.sends, None);
        assert_eq!(link.link.as_deref(), Some("https://bank.example/send"));
    }

    /// Whatever a control is called, in any language or none: a submit
    /// control of a form sends (to its formaction, else its form's
    /// action), and a link never does.
    #[test]
    fn property_a_submit_sends_and_a_link_leads_whatever_the_words() {
        let mut seed = 0x9e37_79b9_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let words = [
            "Continue",
            "Next",
            "OK",
            "→",
            "",
            "Weiter",
            "Suivant",
            "次へ",
            "Далее",
            "Send",
            "Pay",
            "Zoë",
            "Ｇｏ",
            "Sub\u{200b}mit",
            "Résumé",
            "確認",
        ];
        let actions = [
            "https://a.example/x",
            "https://evil.example/collect",
            "mailto:x@y.example",
            "",
        ];
        for _ in 0..3_000 {
            let name: String = (0..1 + next() % 3)
                .map(|_| words[(next() % words.len() as u64) as usize])
                .collect::<Vec<_>>()
                .join(" ");
            let action = actions[(next() % actions.len() as u64) as usize];
            let over = (next() % 3 == 0).then(|| "https://drop.example/y".to_owned());
            let (tag, input_type) = match next() % 4 {
                0 => ("button", ""),
                1 => ("button", "submit"),
                2 => ("input", "submit"),
                _ => ("input", "image"),
            };
            let submit = judge(
                "e1",
                "button",
                &name,
                &Facts {
                    tag,
                    input_type,
                    form: form(action, "post"),
                    form_override: (over.clone(), None),
                    ..Facts::default()
                },
            );
            let sends = submit.sends.expect("a form's submit sends");
            assert_eq!(
                sends.to,
                over.unwrap_or_else(|| action.to_owned()),
                "{name}"
            );
            let link = judge(
                "e2",
                "link",
                &name,
                &Facts {
                    tag: "a",
                    href: Some(action.to_owned()),
                    ..Facts::default()
                },
            );
            assert_eq!(link.sends, None, "{name}");
        }
    }

    #[test]
    fn password_and_secret_fields() {
        let pw = judge(
            "e1",
            "textbox",
            "Password",
            &Facts {
                tag: "input",
                input_type: "password",
                ..Facts::default()
            },
        );
        assert!(pw.password && pw.secret && pw.editable);
        // Named otherwise, still a password field by its type.
        let odd = judge(
            "e2",
            "textbox",
            "Code",
            &Facts {
                tag: "input",
                input_type: "password",
                ..Facts::default()
            },
        );
        assert!(odd.password);
        let token = judge(
            "e3",
            "textbox",
            "API token",
            &Facts {
                tag: "input",
                input_type: "text",
                ..Facts::default()
            },
        );
        assert!(token.secret && !token.password);
        let card = judge(
            "e4",
            "textbox",
            "",
            &Facts {
                tag: "input",
                input_type: "text",
                field_words: "cc-number".into(),
                ..Facts::default()
            },
        );
        assert!(card.secret);
        let email = judge(
            "e5",
            "textbox",
            "Email",
            &Facts {
                tag: "input",
                input_type: "email",
                ..Facts::default()
            },
        );
        assert!(!email.secret && email.editable);
    }
}
