//! SSE parsing + OpenAI event mapping throughput on a synthetic stream (text deltas
//! with a few fragmented tool calls), fed in 4 KiB network-sized pieces.
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

use std::fmt::Write as _;

mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use switchboard::llm::StreamDecoder;
use switchboard::llm::decode::OpenAiDecoder;
use switchboard::sse::SseParser;

/// About `target` bytes of `data: {chunk}` lines ending in `[DONE]`.
fn synthetic_stream(target: usize) -> Vec<u8> {
    let mut out = String::with_capacity(target + 1024);
    let mut i = 0usize;
    while out.len() < target {
        if i % 50 == 49 {
            let _ = write!(
                out,
                "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"fs\",\"arguments\":\"{{\\\"operation\\\":\\\"list\\\",\"}}}}]}},\"finish_reason\":null}}]}}\n\n"
            );
        } else {
            let _ = write!(
                out,
                "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"token {i} of a long streamed answer \"}},\"finish_reason\":null}}]}}\n\n"
            );
        }
        i += 1;
    }
    out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    out.push_str(
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\n",
    );
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

/// Parses and maps the whole stream as `llm::transport` does; returns the number of
/// `LlmEvent`s.
fn decode(bytes: &[u8]) -> usize {
    let mut parser = SseParser::new();
    let mut decoder = OpenAiDecoder::default();
    let mut n = 0;
    'read: for piece in bytes.chunks(4096) {
        parser.push(piece);
        while let Some(event) = parser.next_event().expect("valid SSE") {
            n += decoder
                .on_event(event.name, event.data)
                .expect("valid chunk")
                .len();
            if decoder.is_complete() {
                break 'read;
            }
        }
    }
    n + decoder.finish().expect("complete stream").len()
}

/// The reference: the previous design, `eventsource-stream` events (a `String` per
/// event, the buffer re-split per line) and a `serde_json::Value` per chunk.
async fn reference(bytes: &[u8]) -> usize {
    let pieces = bytes
        .chunks(4096)
        .map(|c| Ok::<_, std::convert::Infallible>(c.to_vec()));
    let mut events = futures::stream::iter(pieces).eventsource();
    let mut n = 0;
    while let Some(event) = events.next().await {
        let event = event.expect("valid SSE");
        if event.data == "[DONE]" {
            break;
        }
        let value: serde_json::Value = serde_json::from_str(&event.data).expect("valid chunk");
        n += usize::from(value.get("choices").is_some());
    }
    n
}

/// The floor: finding the lines and checking UTF-8, no JSON at all.
fn floor(bytes: &[u8]) -> usize {
    let mut n = 0;
    for piece in bytes.chunks(4096) {
        for line in piece.split(|b| *b == b'\n') {
            n += usize::from(std::str::from_utf8(line).is_ok_and(|l| l.starts_with("data")));
        }
    }
    n
}

fn bench_sse(c: &mut Criterion) {
    let bytes = synthetic_stream(8 * 1024 * 1024);
    let mut group = c.benchmark_group("sse");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("openai_8MiB", |b| b.iter(|| decode(black_box(&bytes))));
    group.bench_function("reference_eventsource_value_8MiB", |b| {
        b.iter(|| futures::executor::block_on(reference(black_box(&bytes))));
    });
    group.bench_function("floor_lines_utf8_8MiB", |b| {
        b.iter(|| floor(black_box(&bytes)));
    });
    group.finish();
    let mib = f64::from(u32::try_from(bytes.len()).expect("8 MiB")) / f64::from(1 << 20);
    let ratio = support::print_ratio(
        "sse/openai_8MiB",
        "eventsource-stream + Value",
        9,
        || {
            black_box(decode(&bytes));
        },
        || {
            black_box(futures::executor::block_on(reference(&bytes)));
        },
    );
    println!("  (a speed-up of {:.2}×)", 1.0 / ratio);
    support::print_ratio(
        "sse/openai_8MiB",
        "the line/UTF-8 floor",
        9,
        || {
            black_box(decode(&bytes));
        },
        || {
            black_box(floor(&bytes));
        },
    );
    let start = std::time::Instant::now();
    black_box(decode(&bytes));
    println!(
        "  one pass: {:.0} MiB/s",
        mib / start.elapsed().as_secs_f64()
    );
}

criterion_group!(benches, bench_sse);
criterion_main!(benches);
