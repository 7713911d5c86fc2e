using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using BenchmarkDotNet.Reports;

namespace Missive.Benchmarks;

/// <summary>One measured scenario and its ratios to the baseline of its group, in the same run.</summary>
public sealed record RatioRow(string Suite, string Scenario, string Parameters, double MeanNs, long? AllocatedBytes, double TimeRatio, double? AllocationRatio, bool IsBaseline, double? FloorRatio = null);

/// <summary>Turns BenchmarkDotNet summaries into ratio tables and a chart. Every figure comes from the summaries.</summary>
public static class Reporting
{
    public static List<RatioRow> Ratios(IEnumerable<Summary> summaries)
    {
        var rows = new List<RatioRow>();
        foreach (Summary summary in summaries)
        {
            var measured = summary.Reports
                .Where(r => r.Success && r.ResultStatistics is not null)
                .Select(r => new
                {
                    Report = r,
                    Group = r.BenchmarkCase.Descriptor.Type.Name + "|" + r.BenchmarkCase.Parameters.DisplayInfo + "|" + string.Join(",", r.BenchmarkCase.Descriptor.Categories),
                })
                .ToList();
            // A group is one set of parameter values (and category). Suites compared across a parameter
            // instead (throughput: the Path parameter) take the Path=Standard row as their baseline.
            foreach (var group in measured.GroupBy(m => WithoutPath(m.Group)))
            {
                var baseline = group.FirstOrDefault(m => m.Report.BenchmarkCase.Descriptor.Baseline)
                    ?? group.FirstOrDefault(m => m.Report.BenchmarkCase.Parameters.DisplayInfo.Contains("Path=Standard", StringComparison.Ordinal));
                // The floor (System.Text.Json on the bare payload), where the group has one: each row's time over it.
                var floor = group.FirstOrDefault(m => m.Report.BenchmarkCase.Descriptor.WorkloadMethodDisplayInfo.StartsWith("'Floor", StringComparison.Ordinal));
                double floorMean = floor?.Report.ResultStatistics!.Mean ?? double.NaN;
                foreach (var item in group)
                {
                    BenchmarkReport report = item.Report;
                    double mean = report.ResultStatistics!.Mean;
                    long? allocated = report.GcStats.GetBytesAllocatedPerOperation(report.BenchmarkCase);
                    double baseMean = baseline?.Report.ResultStatistics!.Mean ?? double.NaN;
                    long? baseAllocated = baseline?.Report.GcStats.GetBytesAllocatedPerOperation(baseline.Report.BenchmarkCase);
                    rows.Add(new RatioRow(
                        report.BenchmarkCase.Descriptor.Type.Name.Replace("Benchmarks", string.Empty, StringComparison.Ordinal),
                        report.BenchmarkCase.Descriptor.WorkloadMethodDisplayInfo,
                        report.BenchmarkCase.Parameters.DisplayInfo,
                        mean,
                        allocated,
                        mean / baseMean,
                        allocated is { } a && baseAllocated is { } b && b > 0 ? (double)a / b : null,
                        ReferenceEquals(item, baseline),
                        floor is null ? null : mean / floorMean));
                }
            }
        }

        return rows;
    }

    private static string WithoutPath(string group)
    {
        int start = group.IndexOf("Path=", StringComparison.Ordinal);
        if (start < 0)
        {
            return group;
        }

        int end = group.IndexOfAny([',', ']'], start);
        return group.Remove(start, end - start);
    }

    public static string ToMarkdown(IReadOnlyList<RatioRow> rows)
    {
        var text = new StringBuilder();
        foreach (IGrouping<string, RatioRow> suite in rows.GroupBy(r => r.Suite))
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"### {suite.Key}").AppendLine();
            text.AppendLine("| Parameters | Scenario | Mean | Time ratio | Allocated | Alloc ratio | Time / floor |");
            text.AppendLine("|---|---|---:|---:|---:|---:|---:|");
            foreach (RatioRow row in suite)
            {
                text.AppendLine(CultureInfo.InvariantCulture, $"| {row.Parameters} | {row.Scenario}{(row.IsBaseline ? " (baseline)" : string.Empty)} | {FormatTime(row.MeanNs)} | {row.TimeRatio:0.000} | {(row.AllocatedBytes is { } a ? a.ToString("N0", CultureInfo.InvariantCulture) + " B" : "?")} | {(row.AllocationRatio is { } r ? r.ToString("0.000", CultureInfo.InvariantCulture) : "-")} | {(row.FloorRatio is { } f ? f.ToString("0.00", CultureInfo.InvariantCulture) : "-")} |");
            }

            text.AppendLine();
        }

        return text.ToString();
    }

    /// <summary>A horizontal bar chart of time ratios (bars) with allocation ratios written beside them; one panel per suite.</summary>
    public static string ToSvg(IReadOnlyList<RatioRow> rows, string title)
    {
        var chartRows = rows.Where(r => !r.IsBaseline && !double.IsNaN(r.TimeRatio)).ToList();
        const int labelWidth = 680, barWidth = 360, rowHeight = 18, top = 50;
        double maxRatio = Math.Max(1.0, chartRows.Count == 0 ? 1 : chartRows.Max(r => r.TimeRatio));
        int height = top + ((chartRows.Count + (rows.Select(r => r.Suite).Distinct().Count() * 2)) * rowHeight) + 40;
        var svg = new StringBuilder();
        svg.AppendLine(CultureInfo.InvariantCulture, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{labelWidth + barWidth + 200}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">");
        svg.AppendLine("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
        svg.AppendLine(CultureInfo.InvariantCulture, $"<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{Escape(title)}</text>");
        svg.AppendLine("<text x=\"10\" y=\"38\" fill=\"#555\">Bars: mean time as a ratio of the baseline in the same run (1.0 = baseline, shorter is faster). Right: allocated bytes ratio.</text>");
        double scale = barWidth / maxRatio;
        int y = top;
        foreach (IGrouping<string, RatioRow> suite in chartRows.GroupBy(r => r.Suite))
        {
            y += rowHeight;
            svg.AppendLine(CultureInfo.InvariantCulture, $"<text x=\"10\" y=\"{y}\" font-weight=\"bold\">{Escape(suite.Key)}</text>");
            y += 4;
            foreach (RatioRow row in suite)
            {
                double width = Math.Max(1, row.TimeRatio * scale);
                string colour = row.TimeRatio <= 1 ? "#2a7ab9" : "#c0504d";
                svg.AppendLine(CultureInfo.InvariantCulture, $"<text x=\"10\" y=\"{y + 12}\">{Escape(row.Parameters + " " + row.Scenario)}</text>");
                svg.AppendLine(CultureInfo.InvariantCulture, $"<rect x=\"{labelWidth}\" y=\"{y + 2}\" width=\"{width:0.0}\" height=\"{rowHeight - 5}\" fill=\"{colour}\"/>");
                svg.AppendLine(CultureInfo.InvariantCulture, $"<text x=\"{labelWidth + width + 4:0.0}\" y=\"{y + 12}\">{row.TimeRatio:0.00}x time, {(row.AllocationRatio is { } a ? a.ToString("0.00", CultureInfo.InvariantCulture) + "x alloc" : "alloc n/a")}</text>");
                y += rowHeight;
            }
        }

        double oneX = labelWidth + scale;
        svg.AppendLine(CultureInfo.InvariantCulture, $"<line x1=\"{oneX:0.0}\" y1=\"{top}\" x2=\"{oneX:0.0}\" y2=\"{y}\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>");
        svg.AppendLine(CultureInfo.InvariantCulture, $"<text x=\"{oneX + 3:0.0}\" y=\"{y + 14}\" fill=\"#333\">1.0 = baseline</text>");
        svg.AppendLine("</svg>");
        return svg.ToString();
    }

    public static string FormatTime(double ns) => ns switch
    {
        < 1_000 => ns.ToString("0.0", CultureInfo.InvariantCulture) + " ns",
        < 1_000_000 => (ns / 1_000).ToString("0.00", CultureInfo.InvariantCulture) + " us",
        _ => (ns / 1_000_000).ToString("0.00", CultureInfo.InvariantCulture) + " ms",
    };

    private static string Escape(string text) => text.Replace("&", "&amp;", StringComparison.Ordinal).Replace("<", "&lt;", StringComparison.Ordinal).Replace(">", "&gt;", StringComparison.Ordinal);
}
