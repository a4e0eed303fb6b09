use std::time::Instant;
use tournament::*;
fn main() {
    let n: usize = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(500);
    let rounds: u32 = std::env::args().nth(2).map(|a| a.parse().unwrap()).unwrap_or(9);
    let seed: u64 = std::env::args().nth(3).map(|a| a.parse().unwrap()).unwrap_or(1);
    let entrants: Vec<Entrant> =
        (0..n).map(|i| Entrant { rating: Some(1000.0 + ((i * 7919) % 1500) as f64) }).collect();
    let mut times = Vec::new();
    let r = simulate(Format::Swiss { rounds }, entrants, seed, |t| {
        let t0 = Instant::now();
        let p = t.pair_round();
        times.push(t0.elapsed());
        p
    });
    match r {
        Ok((t, rep)) => {
            println!("{rep:?}");
            println!("times: {:?}", times);
            if n <= 20 {
                print!("{}", t.standings_table());
                print!("{}", t.crosstable_table());
            }
        }
        Err(e) => println!("error {e:?} after {:?}", times),
    }
}
