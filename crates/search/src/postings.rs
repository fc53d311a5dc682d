//! The events a word is in: rising numbers, each kept as its distance from
//! the one before in as few bytes as it needs (most take one). A list's
//! first distance is from 0, so any list can be read on its own.

/// Appends `gap` as a varint.
pub fn push_gap(bytes: &mut Vec<u8>, mut gap: u32) {
    while gap >= 0x80 {
        bytes.push((gap as u8 & 0x7F) | 0x80);
        gap >>= 7;
    }
    bytes.push(gap as u8);
}

/// The first number of `bytes`, and the bytes it took.
pub fn first(bytes: &[u8]) -> (u32, usize) {
    let mut value: u32 = 0;
    for (i, &b) in bytes.iter().enumerate() {
        value |= u32::from(b & 0x7F).wrapping_shl(7 * i as u32);
        if b & 0x80 == 0 {
            return (value, i + 1);
        }
    }
    (value, bytes.len())
}

/// Every event of a list, rising.
pub fn each(bytes: &[u8], mut f: impl FnMut(u32)) {
    let mut doc: u32 = 0;
    let mut gap: u32 = 0;
    let mut shift: u32 = 0;
    for &b in bytes {
        gap |= u32::from(b & 0x7F).wrapping_shl(shift);
        if b & 0x80 == 0 {
            doc = doc.wrapping_add(gap);
            f(doc);
            gap = 0;
            shift = 0;
        } else {
            shift += 7;
        }
    }
}

/// A list still growing (a word met since the last freeze).
#[derive(Debug, Default)]
pub struct Postings {
    pub bytes: Vec<u8>,
    pub last: Option<u32>,
}

impl Postings {
    /// Adds `doc`; one at or below the last is already there.
    pub fn push(&mut self, doc: u32) {
        let gap = match self.last {
            Some(last) if doc <= last => return,
            Some(last) => doc - last,
            None => doc,
        };
        push_gap(&mut self.bytes, gap);
        self.last = Some(doc);
    }
}
