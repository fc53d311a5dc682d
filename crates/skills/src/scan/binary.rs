//! Bundled programs, recognised by their bytes rather than their names: ELF,
//! Mach-O (thin and fat; a fat header shares CAFEBABE with Java classes, so
//! it is confirmed by parsing), and Windows PE (`MZ` with `PE\0\0` where the
//! DOS header points). Images and fonts are binary but aren't programs.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Program(&'static str),
    /// Images, fonts: fine to carry, nothing to read.
    Media,
    /// An archive or a document: not opened.
    Archive(&'static str),
    /// Some other binary.
    Other,
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A fat Mach-O: a small number of architectures, each a known CPU type.
/// A Java class file has the same magic, then its version (45 or more).
fn fat_macho(b: &[u8]) -> bool {
    let Some(count) = be32(b, 4) else {
        return false;
    };
    if !(1..=20).contains(&count) {
        return false;
    }
    let Some(cpu) = be32(b, 8) else { return false };
    const CPUS: [u32; 6] = [7, 0x0100_0007, 12, 0x0100_000C, 18, 0x0100_0012];
    CPUS.contains(&cpu)
}

pub fn kind(b: &[u8]) -> Kind {
    let starts = |magic: &[u8]| b.starts_with(magic);
    if starts(b"\x7fELF") {
        return Kind::Program("a Linux program (ELF)");
    }
    if starts(&[0xFE, 0xED, 0xFA, 0xCE])
        || starts(&[0xFE, 0xED, 0xFA, 0xCF])
        || starts(&[0xCE, 0xFA, 0xED, 0xFE])
        || starts(&[0xCF, 0xFA, 0xED, 0xFE])
    {
        return Kind::Program("a Mac program (Mach-O)");
    }
    if (starts(&[0xCA, 0xFE, 0xBA, 0xBE]) || starts(&[0xBE, 0xBA, 0xFE, 0xCA])) && fat_macho(b) {
        return Kind::Program("a Mac program (universal Mach-O)");
    }
    if starts(b"MZ") {
        if let Some(at) = le32(b, 0x3C) {
            if b.get(at as usize..at as usize + 4) == Some(b"PE\0\0") {
                return Kind::Program("a Windows program (PE)");
            }
        }
    }
    let media: [&[u8]; 9] = [
        b"\x89PNG",
        b"\xFF\xD8\xFF",
        b"GIF8",
        b"wOFF",
        b"wOF2",
        b"OTTO",
        b"\x00\x01\x00\x00",
        b"\x00\x00\x01\x00",
        b"BM",
    ];
    if media.iter().any(|m| starts(m)) || (starts(b"RIFF") && b.get(8..12) == Some(b"WEBP")) {
        return Kind::Media;
    }
    if starts(b"PK\x03\x04") {
        return Kind::Archive("a zip archive");
    }
    if starts(&[0x1F, 0x8B]) {
        return Kind::Archive("a gzip archive");
    }
    if starts(b"%PDF") {
        return Kind::Archive("a PDF");
    }
    if starts(b"7z\xBC\xAF") {
        return Kind::Archive("a 7z archive");
    }
    if starts(&[0xCA, 0xFE, 0xBA, 0xBE]) {
        return Kind::Archive("a Java class");
    }
    Kind::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_by_their_bytes() {
        assert!(matches!(kind(b"\x7fELF\x02\x01\x01"), Kind::Program(_)));
        assert!(matches!(
            kind(&[0xCF, 0xFA, 0xED, 0xFE, 7, 0, 0, 1]),
            Kind::Program(_)
        ));
        // A universal binary: 2 architectures, x86_64 first.
        let fat = [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 2, 1, 0, 0, 7, 0, 0, 0, 3];
        assert!(matches!(kind(&fat), Kind::Program(_)));
        // A Java class: same magic, then minor 0 and major 52.
        let class = [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52, 0, 0x1D];
        assert_eq!(kind(&class), Kind::Archive("a Java class"));
        let mut pe = vec![0u8; 0x100];
        pe[0] = b'M';
        pe[1] = b'Z';
        pe[0x3C] = 0x80;
        pe[0x80..0x84].copy_from_slice(b"PE\0\0");
        assert!(matches!(kind(&pe), Kind::Program(_)));
        assert_eq!(kind(b"MZ just text that starts with MZ"), Kind::Other);
    }

    #[test]
    fn images_and_fonts_are_not_programs() {
        assert_eq!(kind(b"\x89PNG\r\n\x1a\n"), Kind::Media);
        assert_eq!(kind(b"wOF2\x00\x01"), Kind::Media);
        assert_eq!(kind(b"\xFF\xD8\xFF\xE0"), Kind::Media);
    }
}
