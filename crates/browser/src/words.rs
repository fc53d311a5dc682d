//! Whether a control's words say it sends something (ADR 0144's
//! "communication click"): send, post, reply, submit, publish, pay, buy,
//! transfer, and their usual forms and translations. Read after folding the
//! text the way a person sees it: any case, full-width letters as plain
//! ones, invisible characters dropped, accents kept and also stripped.
//!
//! Words are a second line: every click that submits a form sends, whatever
//! its button says (see `element.rs`). They catch the buttons a page's own
//! script sends with.

/// Word starts (Latin-script languages, matched at the start of a word).
const SENDS: &[&str] = &[
    // English
    "send",
    "sent",
    "post",
    "reply",
    "replies",
    "respond",
    "submit",
    "publish",
    "share",
    "tweet",
    "upload",
    "forward",
    "invite",
    "sign up",
    "signup",
    "apply",
    // French, German, Spanish, Portuguese, Italian, Dutch
    "envoy",
    "envoi",
    "publi",
    "repond",
    "répond",
    "partag",
    "senden",
    "absenden",
    "abschicken",
    "antwort",
    "veröffentlich",
    "veroffentlich",
    "teilen",
    "enviar",
    "envía",
    "envia",
    "respond",
    "compartir",
    "inviar",
    "invia",
    "rispond",
    "pubblic",
    "condividi",
    "verzend",
    "verstuur",
    "versturen",
    "antwoord",
    "plaats",
    "delen",
];

/// Word starts that could spend money.
const SPENDS: &[&str] = &[
    "pay",
    "buy",
    "bought",
    "purchas",
    "checkout",
    "check out",
    "order",
    "donat",
    "transfer",
    "book now",
    "subscribe",
    "payer",
    "paie",
    "achet",
    "commander",
    "virement",
    "transférer",
    "transferer",
    "bezahl",
    "kauf",
    "bestell",
    "überweis",
    "uberweis",
    "pagar",
    "pague",
    "compr",
    "transferir",
    "pedido",
    "paga",
    "acquist",
    "ordina",
    "trasferi",
    "betal",
    "koop",
    "kopen",
    "bestel",
    "overmak",
];

/// Words in scripts without spaces between words (matched anywhere), and
/// Cyrillic and Arabic stems.
const SENDS_ANYWHERE: &[&str] = &[
    "отправ",
    "ответ",
    "опубликов",
    "поделит",
    "送信",
    "返信",
    "投稿",
    "公開",
    "共有",
    "发送",
    "發送",
    "回复",
    "回覆",
    "发布",
    "發佈",
    "分享",
    "提交",
    "전송",
    "보내",
    "답장",
    "게시",
    "등록",
    "إرسال",
    "أرسل",
    "ارسل",
    "نشر",
    "رد",
];
const SPENDS_ANYWHERE: &[&str] = &[
    "оплат",
    "купит",
    "заказ",
    "перевест",
    "перевод",
    "支払",
    "払う",
    "購入",
    "注文",
    "送金",
    "支付",
    "付款",
    "购买",
    "購買",
    "下单",
    "转账",
    "轉帳",
    "결제",
    "구매",
    "주문",
    "송금",
    "ادفع",
    "دفع",
    "شراء",
    "اشتر",
    "تحويل",
];

/// The text as a person reads it: lowercase, full-width letters as plain
/// ones, invisible characters gone, runs of space as one.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = match c as u32 {
            // Full-width ASCII.
            0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            0x3000 => ' ',
            _ => c,
        };
        if matches!(c, '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
        {
            continue;
        }
        if c.is_whitespace() || c == '_' || c == '-' {
            if !space && !out.is_empty() {
                out.push(' ');
            }
            space = true;
            continue;
        }
        space = false;
        out.extend(c.to_lowercase());
    }
    out.trim_end().to_owned()
}

/// Common Latin accents taken off, for the accent-free spellings.
fn unaccent(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'ç' => 'c',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ñ' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            other => other,
        })
        .collect()
}

/// Whether a word of `folded` starts with `start` (which may hold a space).
fn word_starts(folded: &str, start: &str) -> bool {
    let mut at = 0;
    while let Some(found) = folded[at..].find(start) {
        let i = at + found;
        let before = folded[..i].chars().next_back();
        if before.is_none_or(|c| !c.is_alphanumeric()) {
            return true;
        }
        at = i + start.len();
    }
    false
}

fn says(text: &str, starts: &[&str], anywhere: &[&str]) -> bool {
    let folded = fold(text);
    let plain = unaccent(&folded);
    starts
        .iter()
        .any(|w| word_starts(&folded, w) || word_starts(&plain, w))
        || anywhere.iter().any(|w| folded.contains(w))
}

/// What a control's words say it does, if it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Says {
    Sends,
    Spends,
}

/// Whether `text` (a name, an address's path) says it sends, or spends.
pub fn says_sends(text: &str) -> Option<Says> {
    if says(text, SPENDS, SPENDS_ANYWHERE) {
        Some(Says::Spends)
    } else if says(text, SENDS, SENDS_ANYWHERE) {
        Some(Says::Sends)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_of_sending_in_any_spelling() {
        for (text, want) in [
            ("Send", Some(Says::Sends)),
            ("SEND MESSAGE", Some(Says::Sends)),
            ("Ｓｅｎｄ", Some(Says::Sends)),
            ("Se\u{200b}nd", Some(Says::Sends)),
            ("send-now", Some(Says::Sends)),
            ("Post reply", Some(Says::Sends)),
            ("Submit", Some(Says::Sends)),
            ("Publish", Some(Says::Sends)),
            ("Envoyer", Some(Says::Sends)),
            ("Répondre", Some(Says::Sends)),
            ("Repondre", Some(Says::Sends)),
            ("Absenden", Some(Says::Sends)),
            ("Veröffentlichen", Some(Says::Sends)),
            ("Enviar", Some(Says::Sends)),
            ("Отправить", Some(Says::Sends)),
            ("送信する", Some(Says::Sends)),
            ("发送", Some(Says::Sends)),
            ("보내기", Some(Says::Sends)),
            ("إرسال", Some(Says::Sends)),
            ("/api/messages/send", Some(Says::Sends)),
            ("Pay now", Some(Says::Spends)),
            ("Buy", Some(Says::Spends)),
            ("Place order", Some(Says::Spends)),
            ("Proceed to checkout", Some(Says::Spends)),
            ("Transfer €500", Some(Says::Spends)),
            ("Bezahlen", Some(Says::Spends)),
            ("Jetzt kaufen", Some(Says::Spends)),
            ("Comprar", Some(Says::Spends)),
            ("Оплатить", Some(Says::Spends)),
            ("購入する", Some(Says::Spends)),
            ("立即支付", Some(Says::Spends)),
            ("결제하기", Some(Says::Spends)),
            ("Next", None),
            ("Search", None),
            ("Open menu", None),
            ("Previous page", None),
            ("About us", None),
            ("Résumé", None),
            ("", None),
        ] {
            assert_eq!(says_sends(text), want, "{text}");
        }
    }
}
