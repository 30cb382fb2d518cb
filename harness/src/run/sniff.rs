//! A file that is not CSV text, told by its first bytes before a step parses it: a
//! compressed file (gzip, zstd, bzip2, xz, zip), UTF-16 text, or a file that is
//! mostly NUL bytes. The dialect would read any of them as records of garbage; the
//! command line says what the file looks like instead (no decompression here: that
//! is a tool's job, and a step measures parsing, not inflating).

/// Bytes looked at: enough for every magic number and a fair share of NULs.
pub const HEAD: usize = 1024;

// ANCHOR: sniff
/// What `head` (a file's first bytes, up to [`HEAD`]) looks like, in words with
/// what to do, when it is not text a CSV parser should read; `None` for text.
pub fn sniff(head: &[u8]) -> Option<String> {
    let magic: [(&[u8], &str, &str); 6] = [
        (b"\x1f\x8b", "a gzip file", "gzip -dk FILE"),
        (b"\x28\xb5\x2f\xfd", "a zstd file", "zstd -d FILE"),
        (b"\xfd7zXZ\x00", "an xz file", "xz -dk FILE"),
        (b"PK\x03\x04", "a zip archive", "unzip FILE"),
        (
            b"\xff\xfe",
            "UTF-16 text (little-endian)",
            "iconv -f UTF-16 -t UTF-8 FILE",
        ),
        (
            b"\xfe\xff",
            "UTF-16 text (big-endian)",
            "iconv -f UTF-16 -t UTF-8 FILE",
        ),
    ];
    for (prefix, what, fix) in magic {
        if head.starts_with(prefix) {
            return Some(format!(
                "it looks like {what} (it starts with {}); this reads plain CSV text: {fix} first",
                hex_bytes(prefix)
            ));
        }
    }
    // bzip2: "BZh" and a block size digit.
    if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
        return Some(
            "it looks like a bzip2 file (it starts with BZh); this reads plain CSV text: \
             bunzip2 -k FILE first"
                .into(),
        );
    }
    // NUL bytes are data to the dialect, but a quarter of them is UTF-16 without a
    // BOM (every other byte of ASCII text) or a binary file, not a CSV.
    let nuls = head.iter().filter(|&&b| b == 0).count();
    if head.len() >= 16 && nuls * 4 >= head.len() {
        return Some(format!(
            "{nuls} of its first {} bytes are NUL: it looks like UTF-16 text without a BOM \
             (iconv -f UTF-16LE -t UTF-8 FILE) or a binary file, not CSV",
            head.len()
        ));
    }
    None
}

// ANCHOR_END: sniff

fn hex_bytes(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_and_utf16_files_are_named() {
        let said = |head: &[u8]| sniff(head).unwrap_or_default();
        assert!(said(b"\x1f\x8b\x08\x00rest").contains("gzip"));
        assert!(said(b"\x28\xb5\x2f\xfd....").contains("zstd"));
        assert!(said(b"BZh91AY&SY").contains("bzip2"));
        assert!(said(b"\xfd7zXZ\x00\x00").contains("xz"));
        assert!(said(b"PK\x03\x04\x14\x00").contains("zip"));
        assert!(said(b"\xff\xfec\x00a\x00").contains("UTF-16"));
        let utf16: Vec<u8> = "category,value\n".bytes().flat_map(|b| [b, 0]).collect();
        assert!(said(&utf16).contains("NUL"), "{}", said(&utf16));
    }

    #[test]
    fn text_and_a_few_nuls_are_csv() {
        assert_eq!(sniff(b"category,value\na,1\n"), None);
        assert_eq!(sniff(b"\xef\xbb\xbfcategory,value\n"), None); // a UTF-8 BOM
        assert_eq!(sniff(b"category,value,x\na\0b,1,\0\n\0,2,\"\0\0\"\n"), None);
        assert_eq!(sniff(b"BZh,x\n"), None);
        assert_eq!(sniff(b""), None);
    }
}
