//! The process's own metrics, read from `/proc/self` at each scrape (Linux; elsewhere
//! nothing is written): CPU time, resident memory, open descriptors and start time, under
//! the names every Prometheus client library uses.

use std::fmt::Write as _;
use std::sync::OnceLock;

/// Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux's common ABIs).
const TICKS_PER_SECOND: f64 = 100.0;

/// The process's start, as Unix seconds (read once: it does not change).
fn start_time_seconds() -> Option<f64> {
    static START: OnceLock<Option<f64>> = OnceLock::new();
    *START.get_or_init(|| {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let ticks: f64 = stat_fields(&stat)?.get(19)?.parse().ok()?;
        let uptime = std::fs::read_to_string("/proc/uptime").ok()?;
        let up: f64 = uptime.split_whitespace().next()?.parse().ok()?;
        let now = crate::time::now_ms() as f64 / 1000.0;
        Some(now - up + ticks / TICKS_PER_SECOND)
    })
}

/// The fields of `/proc/self/stat` after the command name (field 3 on, so index 0 is the
/// state): the name, in parentheses, may hold spaces.
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().collect())
}

/// The process's user and system CPU time so far, seconds (to 10 ms); `None` off Linux.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let f = stat_fields(&stat)?;
    // utime and stime are fields 14 and 15 of the file.
    let user: f64 = f.get(11)?.parse().ok()?;
    let system: f64 = f.get(12)?.parse().ok()?;
    Some((user + system) / TICKS_PER_SECOND)
}

/// Appends the process metrics to `out`.
pub(super) fn render(out: &mut String) {
    if let Some(fields) = cpu_seconds() {
        let _ = writeln!(
            out,
            "# HELP process_cpu_seconds_total User and system CPU time spent, in seconds"
        );
        let _ = writeln!(out, "# TYPE process_cpu_seconds_total counter");
        let _ = writeln!(out, "process_cpu_seconds_total {fields}");
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let rss_kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok());
    if let Some(kb) = rss_kb {
        let _ =
            writeln!(out, "# HELP process_resident_memory_bytes Resident memory size, in bytes");
        let _ = writeln!(out, "# TYPE process_resident_memory_bytes gauge");
        let _ = writeln!(out, "process_resident_memory_bytes {}", kb * 1024);
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        let _ = writeln!(out, "# HELP process_open_fds Open file descriptors");
        let _ = writeln!(out, "# TYPE process_open_fds gauge");
        let _ = writeln!(out, "process_open_fds {}", fds.count());
    }
    if let Some(start) = start_time_seconds() {
        let _ = writeln!(
            out,
            "# HELP process_start_time_seconds Start time of the process, Unix seconds"
        );
        let _ = writeln!(out, "# TYPE process_start_time_seconds gauge");
        let _ = writeln!(out, "process_start_time_seconds {start:.2}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_survive_a_name_with_spaces_and_parentheses() {
        let stat = "42 (a (weird) name) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0 777 0 0";
        let f = stat_fields(stat).unwrap();
        assert_eq!(f[0], "S");
        assert_eq!(f[11], "250");
        assert_eq!(f[12], "50");
        assert_eq!(f[19], "777");
    }
}
