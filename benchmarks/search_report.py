"""The text tables of `python -m benchmarks search` (the JSON form is the result dict itself)."""

from __future__ import annotations

from typing import Any

LABELS = {
    "plain-bm25": "plain BM25 (peer)",
    "deerflow-regex": "DeerFlow regex (peer)",
    "bm25": "bm25 (auto, no extra)",
    "semantic": "semantic",
    "hybrid": "hybrid (auto, extra)",
}


def _fmt(value: Any, spec: str = ".3f") -> str:
    return "-" if value is None else format(value, spec)


def _quality(result: dict[str, Any]) -> list[str]:
    head = (
        f"{'dataset':<9} {'ranker':<22} {'n':>5} {'hit@1':>6} {'hit@5':>6} {'hit@10':>6} "
        f"{'mr@5':>6} {'mr@10':>6} {'ms p50':>7} {'ms p99':>7} {'cpu p50':>7} {'cpu p99':>7}"
    )
    lines = [head, "-" * len(head)]
    for ds, block in result.get("quality", {}).items():
        for key, row in block["rankers"].items():
            label = LABELS.get(key, key)
            if "skipped" in row:
                lines.append(f"{ds:<9} {label:<22} skipped: {row['skipped']}")
                continue
            lines.append(
                f"{ds:<9} {label:<22} {row['queries']:>5} {_fmt(row['hit@1']):>6} {_fmt(row['hit@5']):>6} "
                f"{_fmt(row['hit@10']):>6} {_fmt(row.get('multi_recall@5')):>6} {_fmt(row.get('multi_recall@10')):>6} "
                f"{_fmt(row.get('ms_p50'), '.2f'):>7} {_fmt(row.get('ms_p99'), '.2f'):>7} "
                f"{_fmt(row.get('cpu_ms_p50'), '.2f'):>7} {_fmt(row.get('cpu_ms_p99'), '.2f'):>7}"
            )
        builds = {k: v for k, v in block["rankers"].items() if "build_s" in v or "semantic_build_s" in v}
        ours: dict[str, Any] = builds.get("bm25") or next(iter(builds.values()), {})
        sem = next((v["semantic_build_s"] for v in builds.values() if "semantic_build_s" in v), None)
        lines.append(
            f"{'':<9} index build ({block['tools']} tools): lexical {_fmt(ours.get('build_s'))} s"
            + (f", semantic first use {sem:.1f} s (model load, tools and words encoded)" if sem else "")
        )
    lines.append(
        "mr@k: multi-tool recall@k (MetaTool two-tool queries); ms: wall time, cpu: the thread's CPU time"
    )
    return lines


def _latency(result: dict[str, Any]) -> list[str]:
    lat = result.get("latency")
    if not lat:
        return []
    lines = [
        "",
        f"latency: {lat['tools']:,} tools, {lat['queries']} BFCL dev queries, top 10, median of {lat['passes']} passes",
        f"{'ranker':<22} {'build s':>8} {'ms p50':>8} {'ms p99':>8}",
    ]
    for key in ("bm25", "plain-bm25", "deerflow-regex"):
        row = lat[key]
        lines.append(f"{LABELS[key]:<22} {row['build_s']:>8.3f} {row['ms_p50']:>8.3f} {row['ms_p99']:>8.3f}")
    ours = lat["bm25"]
    lines.append(
        f"bm25 first build in a fresh process (stems every word once): {ours['build_s_first']:.3f} s wall, "
        f"{ours['cpu_build_s_first']:.3f} s CPU"
    )
    lines.append(
        f"bm25 CPU time of the ranking thread (immune to a busy machine): build {ours['cpu_build_s']:.3f} s, "
        f"p50 {ours['cpu_ms_p50']:.3f} ms, p99 {ours['cpu_ms_p99']:.3f} ms"
    )
    hyb = lat.get("hybrid")
    if hyb:
        lines.append(
            f"hybrid at {hyb['tools']:,} tools (one pass): build {hyb['build_s_cold']:.1f} s embedding every tool, "
            f"{hyb['build_s_cached']:.1f} s from the on-disk cache; p50 {hyb['ms_p50']:.1f} ms, "
            f"p99 {hyb['ms_p99']:.1f} ms (CPU p50 {hyb['cpu_ms_p50']:.1f}, p99 {hyb['cpu_ms_p99']:.1f})"
        )
    return lines


def _runtime(result: dict[str, Any]) -> list[str]:
    rt = result.get("semantic_runtime")
    if not rt:
        return []
    sizes = ", ".join(f"{k} {_fmt(v, '.1f')} MB" for k, v in rt["install_mb"].items())
    if "error" in rt:
        return ["", f"semantic runtime: {sizes}; cold start failed: {rt['error']}"]
    return [
        "",
        f"semantic runtime ({rt['runtime']}): installed {rt['install_mb_total']} MB ({sizes})",
        f"cold start (fresh process: import, model load, first query): {rt['cold_start_s']:.2f} s, median of 3",
    ]


def _cv(result: dict[str, Any]) -> list[str]:
    cv = result.get("cross_validation")
    if not cv:
        return []
    lines = [
        "",
        "two-fold cross-validation (choose on one half of each dataset's queries, score on the other)",
    ]
    for group, block in cv.items():
        if "skipped" in block:
            lines.append(f"  {group}: {block['skipped']}")
            continue
        oof = ", ".join(f"{k} {v:.3f}" for k, v in block["out_of_fold_hit@5"].items())
        lines.append(
            f"  {group}: out-of-fold hit@5 (each half scored with constants chosen on the other) {oof}"
        )
        for f in block["halves"]:
            chosen = ", ".join(f"{k} {v:.3f}" for k, v in f["held_out_hit@5_chosen"].items())
            default = ", ".join(f"{k} {v:.3f}" for k, v in f["held_out_hit@5_default"].items())
            lines.append(
                f"  {group}, chosen on half {f['chosen_on_half']}: {f['chosen']}; held-out hit@5 "
                f"{chosen} (shipped defaults: {default})"
            )
    return lines


def _ceiling(result: dict[str, Any]) -> list[str]:
    block = result.get("ceiling")
    if not block:
        return []
    lines = [
        "",
        "hybrid ceiling: hit@5 of the shipped fusion, of the best weight per query chosen knowing the gold",
        "(an upper bound for any weighting of the two signals), and of the union of the bm25 and semantic top 5",
        f"{'dataset':<9} {'hybrid':>7} {'oracle':>7} {'union':>7} {'misses':>7} {'not Latin':>10} {'beyond 20':>10}",
    ]
    for ds, row in block.items():
        if "skipped" in row:
            lines.append(f"{ds:<9} skipped: {row['skipped']}")
            continue
        lines.append(
            f"{ds:<9} {row['hybrid_hit@5']:>7.3f} {row['oracle_weight_hit@5']:>7.3f} {row['union_top5_hit@5']:>7.3f} "
            f"{row['hybrid_misses']:>7} {row['misses_not_latin_script']:>10} {row['misses_gold_outside_top20']:>10}"
        )
    return lines


def _signals(result: dict[str, Any]) -> list[str]:
    block = result.get("signals")
    if not block:
        return []
    if "skipped" in block:
        return ["", f"signals: skipped: {block['skipped']}"]
    lines = ["", "signals: hit@5 on half 0 / half 1 of each dataset, semantic and hybrid"]
    lines.append(f"{'dataset':<9} {'change':<24} {'semantic':>15} {'hybrid':>15}")
    for ds, rows in block.items():
        for label, row in rows.items():
            sem, hyb = (f"{a:.3f} / {b:.3f}" for a, b in (row["semantic"], row["hybrid"]))
            lines.append(f"{ds:<9} {label:<24} {sem:>15} {hyb:>15}")
    return lines


def render(result: dict[str, Any]) -> str:
    lines = _quality(result) + _latency(result) + _runtime(result) + _cv(result) + _ceiling(result)
    lines += _signals(result)
    lines.append("")
    lines.append(
        "targets: " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in result["targets"].items())
    )
    lines.append(
        f"machine: {result['cpus']} cpus, load average {result['load_average_1m']} at start, "
        f"{result['load_average_1m_end']} at end"
    )
    return "\n".join(lines)
