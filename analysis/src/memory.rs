//! How much memory this process may still take, and a check that refuses a run
//! that would not fit with one line giving the numbers and what to change.
//!
//! [`available`] is the least of three limits, whichever are known:
//!
//! - free RAM: `MemAvailable` in `/proc/meminfo`;
//! - the address-space limit (`ulimit -v`, `RLIMIT_AS`) minus what the process
//!   already maps (`VmSize` in `/proc/self/status`);
//! - the cgroup memory limit minus the cgroup's current use (cgroup v2
//!   `memory.max` / `memory.current`, or v1 `memory.limit_in_bytes` /
//!   `memory.usage_in_bytes`), as in a container or a systemd slice.
//!
//! An allocation failure aborts a Rust program; checking first is how a run ends
//! with a message instead.

use crate::error::{Error, ErrorKind, Result};

/// Which limit is the tightest, for the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Free RAM (`MemAvailable`).
    Ram,
    /// The address-space limit (`ulimit -v`).
    AddressSpace,
    /// The cgroup memory limit.
    Cgroup,
    /// Given by the caller (`--max-memory`).
    Given,
    /// No limit is known: the most one allocation can ever hold.
    Addressable,
}

impl Limit {
    /// What to call the limit in a message.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Ram => "free RAM",
            Limit::AddressSpace => "the address-space limit (ulimit -v) less what is mapped",
            Limit::Cgroup => "the cgroup memory limit less what the cgroup uses",
            Limit::Given => "the given memory limit",
            Limit::Addressable => "the most one allocation can hold",
        }
    }
}

/// Bytes this process can still allocate, if any limit is known: the least of
/// free RAM, the address-space limit less the current virtual size, and the
/// cgroup limit less its current use.
pub fn available() -> Option<u64> {
    available_with_limit().map(|(b, _)| b)
}

/// [`available`] and which limit gave it. Freed blocks the allocator keeps for
/// reuse ([`crate::huge_pages::kept_bytes`]) count as available under each.
pub fn available_with_limit() -> Option<(u64, Limit)> {
    let kept = crate::huge_pages::kept_bytes();
    [
        mem_available().map(|b| (b, Limit::Ram)),
        address_space_left().map(|b| (b, Limit::AddressSpace)),
        cgroup_left().map(|b| (b, Limit::Cgroup)),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|&(b, _)| b)
    .map(|(b, limit)| (b.saturating_add(kept), limit))
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
pub fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemAvailable:")
}

/// The address-space limit (`RLIMIT_AS`) less the process's virtual size; `None`
/// when there is no limit.
pub fn address_space_left() -> Option<u64> {
    let limit = address_space_limit()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, "VmSize:").unwrap_or(0);
    Some(limit.saturating_sub(used))
}

/// The soft address-space limit in bytes, `None` when unlimited or unknown.
pub fn address_space_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one `struct rlimit` to the pointer it is given,
        // which points at such a struct on our stack.
        let rc = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) };
        if rc != 0 || r.rlim_cur == libc::RLIM_INFINITY {
            return None;
        }
        Some(r.rlim_cur)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The cgroup memory limit less its current use, `None` without a limit: the
/// tightest over the process's own cgroup and its ancestors, cgroup v2 or v1.
pub fn cgroup_left() -> Option<u64> {
    let read = |p: &str| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    // v2: `0::/path`; v1: `N:memory:/path` (or a list of controllers with memory).
    let v2 = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(|p| p.trim().to_string());
    let v1 = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then(|| path.trim().to_string())
    });
    let mut best: Option<u64> = None;
    // Its use is read only where a group is limited.
    let mut consider = |max: Option<u64>, used: &dyn Fn() -> Option<u64>| {
        // An unlimited group reads "max" (v2, no number) or a huge number (v1).
        if let Some(max) = max.filter(|&m| m < 1 << 60) {
            let left = max.saturating_sub(used().unwrap_or(0));
            best = Some(best.map_or(left, |b| b.min(left)));
        }
    };
    for (root, path, max_file, used_file) in [
        (
            "/sys/fs/cgroup",
            v2.as_deref(),
            "memory.max",
            "memory.current",
        ),
        (
            "/sys/fs/cgroup/memory",
            v1.as_deref(),
            "memory.limit_in_bytes",
            "memory.usage_in_bytes",
        ),
    ] {
        let mut dir = path.unwrap_or("/").trim_end_matches('/').to_string();
        loop {
            consider(read(&format!("{root}{dir}/{max_file}")), &|| {
                read(&format!("{root}{dir}/{used_file}"))
            });
            match dir.rfind('/') {
                Some(i) => dir.truncate(i),
                None => break,
            }
        }
    }
    best
}

fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Mebibytes, rounded up, for messages.
pub fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// The share of [`available`] a run may plan to use: 80%, leaving room for what
/// the estimate leaves out (the allocator, the program, other processes).
pub fn budget() -> Option<(u64, Limit)> {
    available_with_limit().map(|(b, l)| (b / 10 * 8, l))
}

/// Refuses, with one line, a run that needs `need` bytes when that is more than
/// the budget (80% of [`available`]). `what` names the run (`a 2000 x 2000
/// matrix`), `hint` what to change (`restrict the observers to a smaller zone`).
/// Passes when no limit is known.
pub fn check(need: u64, what: &str, hint: &str) -> Result<()> {
    match budget() {
        Some((budget, limit)) => check_against(need, budget, limit, what, hint),
        // No limit known: still refuse what no allocator could give.
        None => check_against(need, isize::MAX as u64, Limit::Addressable, what, hint),
    }
}

/// [`check`] against a stated budget in bytes (and the limit it stands for).
pub fn check_against(need: u64, budget: u64, limit: Limit, what: &str, hint: &str) -> Result<()> {
    if need <= budget {
        return Ok(());
    }
    let share = match limit {
        Limit::Given | Limit::Addressable => "",
        _ => "80% of ",
    };
    Err(Error::new(
        ErrorKind::TooLarge,
        format!(
            "{what} needs about {} MiB but only {} MiB of memory is available ({share}{}); {hint}",
            mib(need),
            mib(budget),
            limit.describe()
        ),
    ))
}

/// Refuses before allocating `count` items of `size` bytes each when the product
/// overflows or does not fit: for tables sized by a file's numbers.
pub fn check_items(count: u64, size: u64, what: &str, hint: &str) -> Result<()> {
    match count.checked_mul(size) {
        Some(need) => check(need, what, hint),
        None => check_against(u64::MAX, isize::MAX as u64, Limit::Addressable, what, hint),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_available_memory_is_known_and_below_the_ram() {
        // The allocator's tests change what it keeps: not while this one reads it.
        let _one = crate::huge_pages::ONE_AT_A_TIME.lock();
        let kept = crate::huge_pages::kept_bytes();
        let a = available().expect("Linux reports MemAvailable");
        assert!(a > kept);
        assert!(a <= mem_available().unwrap() + kept);
    }

    #[test]
    fn a_refusal_is_one_line_with_the_numbers_and_the_hint() {
        let e = check_against(
            3 << 30,
            1 << 30,
            Limit::AddressSpace,
            "a 10 x 10 matrix",
            "restrict the observers to a smaller zone",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("3072 MiB") && e.contains("1024 MiB"), "{e}");
        assert!(
            e.contains("ulimit -v") && e.contains("restrict the observers to a smaller zone"),
            "{e}"
        );
        assert!(check_against(1 << 30, 1 << 30, Limit::Ram, "x", "y").is_ok());
    }

    #[test]
    fn an_overflowing_table_is_refused() {
        assert!(check_items(u64::MAX, 16, "a table", "smaller").is_err());
    }

    #[test]
    fn kib_fields_parse() {
        let t = "VmPeak:\t  100 kB\nVmSize:\t   64 kB\n";
        assert_eq!(kib_field(t, "VmSize:"), Some(64 * 1024));
        assert_eq!(kib_field(t, "VmRSS:"), None);
    }
}
