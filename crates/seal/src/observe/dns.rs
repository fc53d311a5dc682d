//! Reading a DNS answer for the names behind the addresses in it, so a
//! connection can be named by the host the program asked for. Pure, and
//! careful: the bytes come from the network.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const A: u16 = 1;
const AAAA: u16 = 28;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u16(&mut self) -> Option<u16> {
        let v = u16::from_be_bytes(self.bytes.get(self.at..self.at + 2)?.try_into().ok()?);
        self.at += 2;
        Some(v)
    }

    fn skip(&mut self, n: usize) -> Option<()> {
        let end = self.at.checked_add(n)?;
        (end <= self.bytes.len()).then(|| self.at = end)
    }

    /// A name at the current place, following compression pointers (a
    /// bounded number of them, so a loop of pointers ends).
    fn name(&mut self) -> Option<String> {
        let mut labels: Vec<String> = Vec::new();
        let mut at = self.at;
        let mut jumped = false;
        for _ in 0..128 {
            let len = *self.bytes.get(at)? as usize;
            if len == 0 {
                if !jumped {
                    self.at = at + 1;
                }
                let name = labels.join(".").to_ascii_lowercase();
                return Some(name);
            }
            if len & 0xC0 == 0xC0 {
                let low = *self.bytes.get(at + 1)? as usize;
                if !jumped {
                    self.at = at + 2;
                }
                jumped = true;
                at = ((len & 0x3F) << 8) | low;
                continue;
            }
            let label = self.bytes.get(at + 1..at + 1 + len)?;
            labels.push(String::from_utf8_lossy(label).into_owned());
            at += 1 + len;
        }
        None
    }
}

/// The addresses a DNS response gives, each with the name that was asked
/// (not a CNAME's target: the program asked for the first). Anything that
/// isn't a well-formed response gives nothing.
pub fn answers(bytes: &[u8]) -> Vec<(IpAddr, String)> {
    parse(bytes).unwrap_or_default()
}

fn parse(bytes: &[u8]) -> Option<Vec<(IpAddr, String)>> {
    let mut r = Reader { bytes, at: 0 };
    let _id = r.u16()?;
    let flags = r.u16()?;
    if flags & 0x8000 == 0 {
        return None; // a question, not an answer
    }
    let questions = r.u16()?;
    let answers = r.u16()?;
    r.skip(4)?;
    if questions == 0 {
        return None;
    }
    let asked = r.name()?;
    r.skip(4)?;
    for _ in 1..questions {
        r.name()?;
        r.skip(4)?;
    }
    let mut out = Vec::new();
    for _ in 0..answers {
        r.name()?;
        let kind = r.u16()?;
        let _class = r.u16()?;
        r.skip(4)?;
        let len = r.u16()? as usize;
        let data = bytes.get(r.at..r.at + len)?;
        match (kind, len) {
            (A, 4) => {
                let ip: [u8; 4] = data.try_into().ok()?;
                out.push((IpAddr::V4(Ipv4Addr::from(ip)), asked.clone()));
            }
            (AAAA, 16) => {
                let ip: [u8; 16] = data.try_into().ok()?;
                out.push((IpAddr::V6(Ipv6Addr::from(ip)), asked.clone()));
            }
            _ => {}
        }
        r.skip(len)?;
    }
    Some(out)
}

/// A response as a name server would send it: `name` answered with `ips`
/// (through a CNAME when `via` is given).
#[cfg(test)]
fn response(id: u16, name: &str, via: Option<&str>, ips: &[IpAddr]) -> Vec<u8> {
    let encode = |n: &str| {
        let mut b = Vec::new();
        for label in n.split('.').filter(|l| !l.is_empty()) {
            b.push(label.len() as u8);
            b.extend_from_slice(label.as_bytes());
        }
        b.push(0);
        b
    };
    let mut b = Vec::new();
    b.extend_from_slice(&id.to_be_bytes());
    b.extend_from_slice(&0x8180u16.to_be_bytes());
    b.extend_from_slice(&1u16.to_be_bytes());
    let count = ips.len() + usize::from(via.is_some());
    b.extend_from_slice(&(count as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]);
    b.extend(encode(name));
    let kind = match ips.first() {
        Some(IpAddr::V6(_)) => AAAA,
        _ => A,
    };
    b.extend_from_slice(&kind.to_be_bytes());
    b.extend_from_slice(&1u16.to_be_bytes());
    let mut owner = vec![0xC0, 12];
    if let Some(target) = via {
        b.extend_from_slice(&owner);
        b.extend_from_slice(&5u16.to_be_bytes());
        b.extend_from_slice(&1u16.to_be_bytes());
        b.extend_from_slice(&60u32.to_be_bytes());
        let t = encode(target);
        let at = b.len() + 2;
        b.extend_from_slice(&(t.len() as u16).to_be_bytes());
        b.extend(t);
        owner = vec![0xC0 | (at >> 8) as u8, at as u8];
    }
    for ip in ips {
        b.extend_from_slice(&owner);
        let (kind, data) = match ip {
            IpAddr::V4(v4) => (A, v4.octets().to_vec()),
            IpAddr::V6(v6) => (AAAA, v6.octets().to_vec()),
        };
        b.extend_from_slice(&kind.to_be_bytes());
        b.extend_from_slice(&1u16.to_be_bytes());
        b.extend_from_slice(&60u32.to_be_bytes());
        b.extend_from_slice(&(data.len() as u16).to_be_bytes());
        b.extend(data);
    }
    b
}

/// The name a DNS question asks about (for a test's name server).
pub fn question(bytes: &[u8]) -> Option<(u16, String, u16)> {
    let mut r = Reader { bytes, at: 0 };
    let id = r.u16()?;
    r.skip(10)?;
    let name = r.name()?;
    let kind = r.u16()?;
    Some((id, name, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_name_their_addresses_by_the_name_asked() {
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        let r = response(7, "Files.Example", None, &[ip]);
        assert_eq!(answers(&r), [(ip, "files.example".to_owned())]);
        let r = response(7, "files.example", Some("cdn.provider.example"), &[ip]);
        assert_eq!(answers(&r), [(ip, "files.example".to_owned())]);
        let v6: IpAddr = "2001:db8::7".parse().unwrap();
        assert_eq!(
            answers(&response(1, "a.example", None, &[v6])),
            [(v6, "a.example".to_owned())]
        );
        assert_eq!(question(&r).map(|q| q.1), Some("files.example".to_owned()));
    }

    #[test]
    fn bad_bytes_give_nothing_and_never_panic() {
        let good = response(
            9,
            "files.example",
            Some("x.example"),
            &["192.0.2.1".parse().unwrap()],
        );
        for cut in 0..good.len() {
            let _ = answers(&good[..cut]);
        }
        // Every single-byte change, and a pointer loop.
        for i in 0..good.len() {
            for v in [0u8, 0xC0, 0xFF, 1] {
                let mut b = good.clone();
                b[i] = v;
                let _ = answers(&b);
            }
        }
        let mut looped = good.clone();
        looped[12] = 0xC0;
        looped[13] = 12;
        assert!(answers(&looped).is_empty());
        // A question isn't an answer.
        let mut q = good.clone();
        q[2] = 0x01;
        assert!(answers(&q).is_empty());
    }
}
