//! The spellings a command might print a secret in.

use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use base64::Engine;

use crate::secret::MIN_SECRET;

/// `value` as it is, in hex, in base64, and with `+` for its spaces. Each spelling
/// is one the text could hold whatever came before the secret: for base64,
/// the characters that depend on the secret's bytes alone, at each of the
/// three places a secret can start within base64's 3-byte groups (so a
/// secret inside a longer encoded text is found too, less at most its
/// first and last character).
pub(crate) fn spellings(value: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![value.to_vec(), hex(value, b"0123456789abcdef")];
    out.push(hex(value, b"0123456789ABCDEF"));
    for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
        for lead in 0..3usize {
            let mut bytes = vec![0u8; lead];
            bytes.extend_from_slice(value);
            let text = engine.encode(&bytes);
            let from = (8 * lead).div_ceil(6);
            let to = (8 * (lead + value.len())) / 6;
            if let Some(part) = text.as_bytes().get(from..to) {
                out.push(part.to_vec());
            }
        }
    }
    // Percent-encoding is decoded as the text is read; a form's `+` for a
    // space isn't (a `+` is a `+` in base64), so that spelling is its own.
    if value.contains(&b' ') {
        out.push(
            value
                .iter()
                .map(|&b| if b == b' ' { b'+' } else { b })
                .collect(),
        );
    }
    out.sort();
    out.dedup();
    out.retain(|s| s.len() >= MIN_SECRET);
    out
}

fn hex(value: &[u8], digits: &[u8; 16]) -> Vec<u8> {
    value
        .iter()
        .flat_map(|b| [digits[(b >> 4) as usize], digits[(b & 15) as usize]])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_base64_alignment_is_inside_the_encoding_of_any_text_around_it() {
        let secret = b"sk-live-0123456789";
        let found = spellings(secret);
        for before in 0..6usize {
            for after in 0..4usize {
                let mut text = vec![b'x'; before];
                text.extend_from_slice(secret);
                text.extend(std::iter::repeat_n(b'y', after));
                for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
                    let encoded = engine.encode(&text);
                    assert!(
                        found
                            .iter()
                            .any(|s| encoded.as_bytes().windows(s.len()).any(|w| w == s)),
                        "{encoded}"
                    );
                }
            }
        }
    }
}
