//! SSE parsing + OpenAI event mapping throughput on a synthetic stream (text deltas
//! with a few fragmented tool calls), fed in 4 KiB network-sized pieces.
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

use std::fmt::Write as _;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use switchboard::llm::StreamDecoder;
use switchboard::llm::decode::OpenAiDecoder;

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

/// Parses and maps the whole stream; returns the number of `LlmEvent`s.
async fn decode(bytes: &[u8]) -> usize {
    let pieces = bytes
        .chunks(4096)
        .map(|c| Ok::<_, std::convert::Infallible>(c.to_vec()));
    let mut events = futures::stream::iter(pieces).eventsource();
    let mut decoder = OpenAiDecoder::default();
    let mut n = 0;
    while let Some(event) = events.next().await {
        let event = event.expect("valid SSE");
        n += decoder
            .on_event(&event.event, &event.data)
            .expect("valid chunk")
            .len();
        if decoder.is_complete() {
            break;
        }
    }
    n + decoder.finish().expect("complete stream").len()
}

fn bench_sse(c: &mut Criterion) {
    let bytes = synthetic_stream(8 * 1024 * 1024);
    let mut group = c.benchmark_group("sse");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("openai_8MiB", |b| {
        b.iter(|| futures::executor::block_on(decode(&bytes)));
    });
    group.finish();
}

criterion_group!(benches, bench_sse);
criterion_main!(benches);
