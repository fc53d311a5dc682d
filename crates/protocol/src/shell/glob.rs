//! Whether a glob pattern matches a name, as the shell matches file names:
//! `*`, `?`, `[abc]`, `[a-z]`, `[!x]` / `[^x]`, and `\` making the next
//! character plain. Used to ask whether a pattern word *could be* a
//! program or a place, without looking at any file.

pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    at(&p, &n)
}

fn at(p: &[char], n: &[char]) -> bool {
    // Iterative with one back-track point for `*`, as fnmatch does.
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => {
                pi += 1;
                ni += 1;
                continue;
            }
            Some('[') => {
                if let Some((hit, len)) = class(&p[pi..], n[ni]) {
                    if hit {
                        pi += len;
                        ni += 1;
                        continue;
                    }
                } else if n[ni] == '[' {
                    pi += 1;
                    ni += 1;
                    continue;
                }
            }
            Some('\\') if p.get(pi + 1) == Some(&n[ni]) => {
                pi += 2;
                ni += 1;
                continue;
            }
            Some(c) if *c != '\\' && *c == n[ni] => {
                pi += 1;
                ni += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether some name the pattern matches begins with `prefix`: a pattern
/// that could reach into a folder.
pub fn could_start_with(pattern: &str, prefix: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = prefix.chars().collect();
    starts(&p, &n, 0)
}

fn starts(p: &[char], n: &[char], depth: usize) -> bool {
    if n.is_empty() {
        return true;
    }
    if depth > 256 {
        return true;
    }
    match p.first() {
        None => false,
        Some('*') => (0..=n.len()).any(|k| starts(&p[1..], &n[k..], depth + 1)),
        Some('?') => starts(&p[1..], &n[1..], depth + 1),
        Some('[') => match class(p, n[0]) {
            Some((true, len)) => starts(&p[len..], &n[1..], depth + 1),
            Some((false, _)) => false,
            None => n[0] == '[' && starts(&p[1..], &n[1..], depth + 1),
        },
        Some('\\') if p.len() > 1 => p[1] == n[0] && starts(&p[2..], &n[1..], depth + 1),
        Some(c) => *c == n[0] && starts(&p[1..], &n[1..], depth + 1),
    }
}

/// A bracket expression at the start of `p`: whether `c` is in it, and its
/// length; None when it isn't closed (then `[` is a plain character).
fn class(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    while let Some(&x) = p.get(i) {
        if x == ']' && !first {
            return Some((hit != negate, i + 1));
        }
        first = false;
        let x = if x == '\\' {
            i += 1;
            *p.get(i)?
        } else {
            x
        };
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|e| *e != ']') {
            let end = p[i + 2];
            if x <= c && c <= end {
                hit = true;
            }
            i += 3;
        } else {
            if x == c {
                hit = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn prefixes() {
        use super::could_start_with;
        assert!(could_start_with("/home/ada/.c*", "/home/ada/.conch"));
        assert!(could_start_with("/home/*/.conch/x", "/home/ada/.conch"));
        assert!(could_start_with("/h?me/ada/.co[n]ch", "/home/ada/.conch"));
        assert!(!could_start_with("/home/ada/.d*", "/home/ada/.conch"));
        assert!(could_start_with("/*", "/home/ada/.conch"));
    }

    #[test]
    fn shapes() {
        for (p, n, want) in [
            ("c?rl", "curl", true),
            ("cu*", "curl", true),
            ("*", "anything", true),
            ("c[tu]rl", "curl", true),
            ("c[!u]rl", "curl", false),
            ("c[a-z]rl", "curl", true),
            ("\\*", "*", true),
            ("\\*", "x", false),
            ("w*t", "wget", true),
            ("w*t", "wgets", false),
            ("[", "[", true),
            ("*.pub", "id_ed25519.pub", true),
            ("", "", true),
            ("a", "", false),
        ] {
            assert_eq!(matches(p, n), want, "{p} ~ {n}");
        }
    }
}
