//! NumPy `.npz` archives of one-dimensional `uint32` arrays (and other members, such as
//! JSON text), written and read without compression: the shard files of a distributed
//! exposure run (one file per shard, summed when merged), readable by `numpy.load`.

use std::io::Write;

/// One member of an archive: its name (`sees.npy`) and bytes.
pub type Member = (String, Vec<u8>);

/// The `.npy` bytes (format 1.0) of a one-dimensional little-endian `uint32` array.
pub fn npy_u32(values: &[u32]) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<u4', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    // Magic (6) + version (2) + length (2) + header, padded with spaces to a
    // multiple of 64 and ended by a newline.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + values.len() * 4);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// The values of a one-dimensional `<u4` `.npy` array, or what is wrong with it.
pub fn parse_npy_u32(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy array".into());
    }
    let (len_bytes, start) = match bytes[6] {
        1 => (2, 10),
        2 | 3 => (4, 12),
        v => return Err(format!(".npy version {v} is not supported")),
    };
    let len = if len_bytes == 2 {
        u16::from_le_bytes([bytes[8], bytes[9]]) as usize
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    let header = bytes
        .get(start..start + len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("a truncated .npy header")?;
    if !header.contains("'descr': '<u4'") || !header.contains("'fortran_order': False") {
        return Err(format!("not a uint32 array: {}", header.trim()));
    }
    let shape = header
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.trim().parse::<usize>().ok())
        .ok_or("not a one-dimensional array")?;
    let data = &bytes[start + len..];
    if data.len() != shape * 4 {
        return Err(format!("{} bytes of data for {shape} values", data.len()));
    }
    Ok(data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// CRC-32 (IEEE), as zip files carry it.
fn crc32(data: &[u8]) -> u32 {
    let table: Vec<u32> = (0..256u32)
        .map(|n| {
            (0..8).fold(n, |c, _| {
                if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                }
            })
        })
        .collect();
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

/// Writes the members as a zip archive, stored (no compression).
pub fn write(members: &[Member], out: &mut dyn Write) -> std::io::Result<()> {
    let too_big = || std::io::Error::other("an .npz member over 4 GiB (zip64) is not supported");
    let mut central = Vec::new();
    let mut offset = 0u32;
    for (name, data) in members {
        let size = u32::try_from(data.len()).map_err(|_| too_big())?;
        let crc = crc32(data);
        // Version 2.0, no flags, stored, 1980-01-01 00:00.
        let common = |v: &mut Vec<u8>| {
            for x in [20u16, 0, 0, 0, 0x21] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            for x in [crc, size, size] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
        };
        let mut local = 0x0403_4b50u32.to_le_bytes().to_vec();
        common(&mut local);
        local.extend_from_slice(name.as_bytes());
        out.write_all(&local)?;
        out.write_all(data)?;
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        common(&mut central);
        // Comment length, disk, internal and external attributes, offset.
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
        offset = offset
            .checked_add(local.len() as u32)
            .and_then(|o| o.checked_add(size))
            .ok_or_else(too_big)?;
    }
    out.write_all(&central)?;
    let mut end = 0x0605_4b50u32.to_le_bytes().to_vec();
    end.extend_from_slice(&[0; 4]);
    for _ in 0..2 {
        end.extend_from_slice(&(members.len() as u16).to_le_bytes());
    }
    end.extend_from_slice(&(central.len() as u32).to_le_bytes());
    end.extend_from_slice(&offset.to_le_bytes());
    end.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&end)
}

/// The members of a stored zip archive as `write` writes it, or what is wrong with it.
pub fn read(bytes: &[u8]) -> Result<Vec<Member>, String> {
    let u16_at = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let truncated = || "a truncated .npz archive".to_string();
    let mut members = Vec::new();
    let mut at = 0;
    while u32_at(at) == Some(0x0403_4b50) {
        let flags = u16_at(at + 6).ok_or_else(truncated)?;
        let method = u16_at(at + 8).ok_or_else(truncated)?;
        if method != 0 || flags & 8 != 0 {
            return Err(
                "a compressed .npz member (shards are written uncompressed, by the exposure shard writer)".into(),
            );
        }
        let crc = u32_at(at + 14).ok_or_else(truncated)?;
        let size = u32_at(at + 18).ok_or_else(truncated)? as usize;
        let name_len = u16_at(at + 26).ok_or_else(truncated)? as usize;
        let extra = u16_at(at + 28).ok_or_else(truncated)? as usize;
        let name = bytes
            .get(at + 30..at + 30 + name_len)
            .ok_or_else(truncated)?;
        let start = at + 30 + name_len + extra;
        let data = bytes.get(start..start + size).ok_or_else(truncated)?;
        let name = String::from_utf8_lossy(name).into_owned();
        if crc32(data) != crc {
            return Err(format!("member {name}: the checksum does not match"));
        }
        members.push((name, data.to_vec()));
        at = start + size;
    }
    if members.is_empty() {
        return Err("not an .npz (zip) archive".into());
    }
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let values = vec![0, 1, u32::MAX, 7];
        let members = vec![
            ("sees.npy".to_string(), npy_u32(&values)),
            ("meta.json".to_string(), b"{}".to_vec()),
        ];
        let mut out = Vec::new();
        write(&members, &mut out).unwrap();
        let back = read(&out).unwrap();
        assert_eq!(back, members);
        assert_eq!(parse_npy_u32(&back[0].1).unwrap(), values);
        assert_eq!(npy_u32(&values).len() % 16, 0);
        assert!(read(&out[..40]).is_err());
    }
}
