//! Text like a home's, for the benchmarks and the property tests: words in
//! English, French, German, Russian, Arabic and Japanese, with numbers,
//! paths and hashes now and then, so the words grow as a real home's do.
//! Seeded, so a failure names its seed.

/// A small generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from.get(self.below(from.len()))
            .copied()
            .unwrap_or_default()
    }
}

pub const WORDS: &[&str] = &[
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "for",
    "that",
    "with",
    "file",
    "files",
    "run",
    "command",
    "build",
    "test",
    "tests",
    "deploy",
    "deployment",
    "server",
    "error",
    "warning",
    "invoice",
    "meeting",
    "schedule",
    "tomorrow",
    "please",
    "check",
    "chart",
    "sales",
    "weekly",
    "Réunion",
    "demain",
    "facture",
    "café",
    "Straße",
    "Rechnung",
    "morgen",
    "счёт",
    "встреча",
    "завтра",
    "الفاتورة",
    "اجتماع",
    "東京",
    "会議",
    "明日",
    "請求書",
    "ファイル",
    "テスト",
    "git",
    "log",
    "status",
    "cargo",
    "npm",
    "install",
    "src/main.rs",
    "README.md",
    "docs",
];

/// `words` words: one in 40 a hash, two in 40 a number, one in 40 a path;
/// now and then a new line.
pub fn text(rng: &mut Rng, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        match rng.below(40) {
            0 => out.push_str(&format!("{:x}", rng.next_u64())),
            1 | 2 => out.push_str(&format!("{}", rng.below(100_000))),
            3 => out.push_str(&format!("/home/owner/project{}/src", rng.below(500))),
            _ => out.push_str(rng.pick(WORDS)),
        }
    }
    out
}
