//! `conch providers cap` and `conch providers price`: the spending caps
//! and a provider's prices, as Settings → Models sets them
//! (`conversations::spending::manage`).

use clap::Args;
use conversations::spending::{manage, money, Caps, Ledger, Price};
use conversations::Home;

use crate::Failure;

#[derive(Args)]
pub struct CapArgs {
    /// The most spent in a day (UTC), all chats and routines together.
    #[arg(long)]
    day: Option<f64>,
    /// The most one chat spends.
    #[arg(long)]
    chat: Option<f64>,
    /// The most one routine spends in a day.
    #[arg(long)]
    routine: Option<f64>,
    /// The currency caps and prices are in (three letters: USD, EUR…).
    #[arg(long)]
    currency: Option<String>,
    /// Take every cap away.
    #[arg(long, conflicts_with_all = ["day", "chat", "routine"])]
    off: bool,
}

#[derive(Args)]
pub struct PriceArgs {
    /// The provider.
    name: String,
    /// Per million tokens sent, in the caps' currency.
    #[arg(long, requires = "output")]
    input: Option<f64>,
    /// Per million tokens written.
    #[arg(long, requires = "input")]
    output: Option<f64>,
    /// Back to the known list price for its model.
    #[arg(long, conflicts_with_all = ["input", "output"])]
    known: bool,
    /// No cap for this provider: its requests are sent whatever they cost.
    #[arg(long)]
    no_cap: bool,
    /// Caps hold for it again.
    #[arg(long, conflicts_with = "no_cap")]
    capped: bool,
}

fn show(home: &Home) -> Result<(), Failure> {
    let today = Ledger::new(home.root()).today();
    let o = manage::overview(home.root(), today)?;
    let cap = |c: Option<f64>| c.map_or("no cap".to_owned(), |v| money(v, &o.currency));
    println!(
        "Today: {} spent. Caps: {} a day, {} a chat, {} a routine a day.",
        money(o.today, &o.currency),
        cap(o.day),
        cap(o.chat),
        cap(o.routine)
    );
    for p in &o.providers {
        let price = match (p.used, p.prices) {
            (Some(u), Some(_)) => format!(
                "{} in, {} out per million tokens",
                money(u.input, &o.currency),
                money(u.output, &o.currency)
            ),
            (Some(u), None) => format!(
                "{} in, {} out per million tokens (the list price)",
                money(u.input, "USD"),
                money(u.output, "USD")
            ),
            (None, _) => "price unknown: under a cap it isn't sent to".to_owned(),
        };
        let no_cap = if p.no_cap { "; no cap" } else { "" };
        println!("{}\t{}\t{price}{no_cap}", p.name, p.model);
    }
    Ok(())
}

pub fn cap(home: &Home, args: CapArgs) -> Result<(), Failure> {
    if args.day.is_some()
        || args.chat.is_some()
        || args.routine.is_some()
        || args.currency.is_some()
        || args.off
    {
        let settings = conversations::settings::Settings::load(home.root())?;
        let now = settings.spending.unwrap_or_default();
        let caps = if args.off {
            Caps {
                currency: args.currency.unwrap_or(now.currency),
                ..Caps::default()
            }
        } else {
            Caps {
                currency: args.currency.unwrap_or(now.currency),
                day: args.day.or(now.day),
                chat: args.chat.or(now.chat),
                routine: args.routine.or(now.routine),
            }
        };
        manage::set_caps(home.root(), caps)?;
    }
    show(home)
}

pub fn price(home: &Home, args: PriceArgs) -> Result<(), Failure> {
    let prices = match (args.input, args.output, args.known) {
        (Some(input), Some(output), _) => Some(Some(Price { input, output })),
        (_, _, true) => Some(None),
        _ => None,
    };
    let no_cap = match (args.no_cap, args.capped) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    if prices.is_some() || no_cap.is_some() {
        manage::set_prices(home.root(), &args.name, prices, no_cap)?;
    }
    show(home)
}
