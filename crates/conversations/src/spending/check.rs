//! Whether a request may be sent, from the caps, what was spent and what it
//! would cost (no IO).

use serde::{Deserialize, Serialize};

/// `spending` in settings.json: the caps, in the owner's currency. A cap
/// left out doesn't hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Caps {
    /// ISO 4217 (`USD`, `EUR`, `GBP`…): what every price and cap is in.
    #[serde(default = "usd")]
    pub currency: String,
    /// Everything spent today (UTC), all chats and routines together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day: Option<f64>,
    /// Everything one chat spends, over its life.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat: Option<f64>,
    /// What one routine spends in a day, all its runs together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routine: Option<f64>,
}

fn usd() -> String {
    "USD".to_owned()
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            currency: usd(),
            day: None,
            chat: None,
            routine: None,
        }
    }
}

impl Caps {
    pub fn any(&self) -> bool {
        self.day.is_some() || self.chat.is_some() || self.routine.is_some()
    }
}

/// What was spent so far, where a cap counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub day: f64,
    pub chat: f64,
    /// This routine today; None: the chat isn't a routine's.
    pub routine: Option<f64>,
}

/// An amount as a person reads it: `USD 0.0042`, `EUR 5.00`.
pub fn money(amount: f64, currency: &str) -> String {
    let digits = if amount != 0.0 && amount.abs() < 0.01 {
        4
    } else {
        2
    };
    format!("{currency} {amount:.digits$}")
}

/// What stops a request: the sentence the chat shows.
pub fn refusal(
    caps: &Caps,
    spent: Spent,
    estimate: Option<f64>,
    provider: &str,
    model: &str,
) -> Option<String> {
    if !caps.any() {
        return None;
    }
    let Some(cost) = estimate else {
        return Some(format!(
            "Conch doesn't know what {provider}'s model {model} costs, so it didn't send the request: a cap can't hold without a price. Add its prices in Settings → Models (or conch providers price {provider} --input X --output Y), or choose No cap for this provider."
        ));
    };
    let c = &caps.currency;
    let over = |cap: Option<f64>, spent: f64| cap.filter(|cap| spent + cost > *cap);
    let (what, cap, so_far, then) = if let Some(cap) = over(caps.day, spent.day) {
        ("today's cap", cap, spent.day, "stop here")
    } else if let Some(cap) = over(caps.chat, spent.chat) {
        ("this chat's cap", cap, spent.chat, "stop here")
    } else if let Some((cap, r)) = spent
        .routine
        .and_then(|r| over(caps.routine, r).map(|cap| (cap, r)))
    {
        (
            "this routine's cap for today",
            cap,
            r,
            "let it rest until tomorrow",
        )
    } else {
        return None;
    };
    Some(format!(
        "The next request would pass {what} ({}; {} spent, the request about {}), so it wasn't sent. Raise the cap in Settings → Models, or {then}.",
        money(cap, c),
        money(so_far, c),
        money(cost, c)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(day: Option<f64>, chat: Option<f64>, routine: Option<f64>) -> Caps {
        Caps {
            currency: "EUR".into(),
            day,
            chat,
            routine,
        }
    }

    #[test]
    fn each_cap_holds_alone_and_no_cap_lets_all_through() {
        let spent = Spent {
            day: 4.0,
            chat: 0.9,
            routine: Some(0.45),
        };
        assert_eq!(
            refusal(&caps(None, None, None), spent, None, "p", "m"),
            None
        );
        let day = refusal(&caps(Some(4.05), None, None), spent, Some(0.1), "p", "m").unwrap();
        assert!(
            day.contains("today's cap (EUR 4.05; EUR 4.00 spent, the request about EUR 0.10)"),
            "{day}"
        );
        assert!(
            refusal(&caps(None, Some(1.0), None), spent, Some(0.2), "p", "m")
                .unwrap()
                .contains("this chat's cap")
        );
        assert!(
            refusal(&caps(None, None, Some(0.5)), spent, Some(0.1), "p", "m")
                .unwrap()
                .contains("this routine's cap")
        );
        let not_routine = Spent {
            routine: None,
            ..spent
        };
        assert_eq!(
            refusal(
                &caps(None, None, Some(0.5)),
                not_routine,
                Some(0.1),
                "p",
                "m"
            ),
            None
        );
        assert_eq!(
            refusal(
                &caps(Some(5.0), Some(1.0), Some(1.0)),
                spent,
                Some(0.05),
                "p",
                "m"
            ),
            None
        );
    }

    #[test]
    fn an_unknown_price_fails_closed_under_a_cap() {
        let said = refusal(
            &caps(Some(5.0), None, None),
            Spent::default(),
            None,
            "local",
            "llama3",
        )
        .unwrap();
        assert!(
            said.starts_with("Conch doesn't know what local's model llama3 costs"),
            "{said}"
        );
    }

    #[test]
    fn money_shows_small_amounts_to_four_places() {
        assert_eq!(money(0.0042, "USD"), "USD 0.0042");
        assert_eq!(money(5.0, "EUR"), "EUR 5.00");
        assert_eq!(money(0.0, "USD"), "USD 0.00");
    }
}
