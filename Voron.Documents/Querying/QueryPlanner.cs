using System.Text;
using Voron.Documents.Indexing;

namespace Voron.Documents.Querying;

/// <summary>
/// Chooses how a query runs from the collection's ready indexes. The rules (documented for users
/// on IDocumentQuery): equalities on an index's leading paths, then at most one range on its next
/// path, then sort keys on the paths after (or the id, once every path is fixed); every other
/// condition is checked per entry or per document. With no usable index the query is refused
/// with the index that would serve it, unless it allows a scan. On a read replica the indexes are
/// the primary's as applied so far: a missing one is refused the same way, never waited for.
/// </summary>
internal static class QueryPlanner
{
    public static QueryPlan Plan(QuerySpec spec, IndexCatalog catalog, bool replica = false)
    {
        var conditions = spec.Conditions;
        var orders = spec.Orders;

        if (conditions.FirstOrDefault(c => c.IsId && c.IsEquality) is { } byId)
        {
            return new QueryPlan
            {
                Kind = PlanKind.IdLookup,
                LookupId = byId.Value,
                IdConditions = [.. conditions.Where(c => c.IsId && c != byId)],
                DocumentConditions = [.. conditions.Where(c => !c.IsId)],
                Describe = () => $"id lookup {byId.Display}" + Checks(conditions.Where(c => c != byId)),
            };
        }

        var indexes = catalog.IndexesOf(spec.Collection);
        (IndexRuntime Index, int Equalities, bool Range, bool OrderServed)? best = null;
        foreach (var index in indexes.Where(i => i.Ready))
        {
            var (equalities, range, orderServed) = Score(index, conditions, orders);
            var serves = conditions.Count == 0 ? orders.Count > 0 && orderServed : equalities > 0 || range;
            if (!serves || (!orderServed && !spec.AllowScan))
            {
                continue;
            }

            if (best == null || Better((equalities, range, orderServed), (best.Value.Equalities, best.Value.Range, best.Value.OrderServed)))
            {
                best = (index, equalities, range, orderServed);
            }
        }

        var idRange = conditions.Where(c => c.IsId && c.IsRange).ToList();
        var idOrder = orders.Count > 0 && orders.All(o => o.IsId) && orders.All(o => o.Descending == orders[0].Descending);
        if (best is { } chosen && (chosen.Equalities > 0 || idRange.Count == 0))
        {
            return IndexPlan(spec, chosen.Index, chosen.Equalities, chosen.Range, chosen.OrderServed);
        }

        var idServesOrder = orders.Count == 0 || idOrder;
        if ((idRange.Count > 0 || conditions.Count == 0) && (idServesOrder || spec.AllowScan))
        {
            return IdPlan(spec, idRange, idOrder, idServesOrder ? null : orders);
        }

        if (spec.AllowScan)
        {
            return new QueryPlan
            {
                Kind = PlanKind.Scan,
                IdConditions = [.. conditions.Where(c => c.IsId)],
                DocumentConditions = [.. conditions.Where(c => !c.IsId)],
                Descending = idOrder && orders[0].Descending,
                SortInMemory = orders.Count == 0 || idOrder ? null : orders,
                Describe = () => $"scan of collection '{spec.Collection}' (AllowScan)" + Checks(conditions) + (orders.Count == 0 || idOrder ? "" : $"; sorted in memory by {string.Join(", ", orders)}"),
            };
        }

        throw new NotSupportedException(Refusal(spec, indexes, replica));
    }

    private static bool Better((int E, bool R, bool O) a, (int E, bool R, bool O) b) =>
        a.O != b.O ? a.O : a.E != b.E ? a.E > b.E : a.R && !b.R;

    /// <summary>How much of the query an index serves: leading equalities, a range on the next path, and whether it yields the requested order.</summary>
    private static (int Equalities, bool Range, bool OrderServed) Score(IndexRuntime index, IReadOnlyList<QueryCondition> conditions, IReadOnlyList<QueryOrder> orders)
    {
        var paths = index.Definition.JsonPaths;
        var equalities = 0;
        while (equalities < paths.Count && conditions.Any(c => c.Path == paths[equalities] && c.IsEquality))
        {
            equalities++;
        }

        var range = equalities < paths.Count && conditions.Any(c => c.Path == paths[equalities] && c.IsRange);

        // Sort keys on paths fixed by an equality are constant: drop them.
        var effective = orders.Where(o => o.IsId || !paths.Take(equalities).Contains(o.Path)).ToList();
        var served = effective.Count == 0;
        if (!served && effective.All(o => o.Descending == effective[0].Descending))
        {
            served = true;
            for (var j = 0; j < effective.Count && served; j++)
            {
                var position = equalities + j;
                if (effective[j].IsId)
                {
                    served = j == effective.Count - 1 && position == paths.Count; // entries end with the id
                }
                else
                {
                    served = position < paths.Count && effective[j].Path == paths[position] && !paths[position].IsMultikey;
                }
            }
        }

        return (equalities, range, served);
    }

    private static QueryPlan IndexPlan(QuerySpec spec, IndexRuntime index, int equalities, bool range, bool orderServed)
    {
        var paths = index.Definition.JsonPaths;
        var prefix = new KeyBuilder();
        var used = new HashSet<QueryCondition>();
        var bounds = new List<string>();
        for (var i = 0; i < equalities; i++)
        {
            var equality = spec.Conditions.First(c => c.Path == paths[i] && c.IsEquality);
            prefix.Append(equality.Value);
            used.Add(equality);
            bounds.Add(equality.Display);
        }

        byte[]? lower;
        byte[]? upper;
        if (range)
        {
            var ranges = spec.Conditions.Where(c => c.Path == paths[equalities] && c.IsRange).ToList();
            // A multikey path bounds the scan by one condition only: a document matches "some element
            // > a and some element < b" without any element between a and b.
            if (paths[equalities].IsMultikey)
            {
                ranges = [ranges[0]];
            }

            var low = ranges.FirstOrDefault(c => c.IsLower);
            var high = ranges.FirstOrDefault(c => c.IsUpper);
            var tag = (low ?? high)!.Value[0];
            lower = Concat(prefix.Span, low == null ? [IndexKey.TypeStart(tag)] : low.LowerBound());
            upper = Concat(prefix.Span, high == null ? [IndexKey.TypeEnd(tag)] : high.UpperBound());
            bounds.AddRange(ranges.Select(r => r.Display));
        }
        else
        {
            lower = prefix.Length == 0 ? null : prefix.ToArray();
            upper = prefix.Length == 0 ? null : IndexKey.Successor(prefix.Span);
        }

        // Every condition not spent on the equality prefix is checked: on the entry when its path is
        // a single-value path of the index, else on the document (multikey: any element).
        var keyConditions = new List<(int, QueryCondition)>();
        var idConditions = new List<QueryCondition>();
        var documentConditions = new List<QueryCondition>();
        foreach (var condition in spec.Conditions.Where(c => !used.Contains(c)))
        {
            var component = condition.IsId ? -1 : paths.ToList().IndexOf(condition.Path!);
            if (condition.IsId)
            {
                idConditions.Add(condition);
            }
            else if (component >= 0 && !paths[component].IsMultikey)
            {
                keyConditions.Add((component, condition));
            }
            else
            {
                documentConditions.Add(condition);
            }
        }

        var descending = orderServed && spec.Orders.Count > 0 && spec.Orders[0].Descending;
        var multikey = index.MultikeyComponent;
        return new QueryPlan
        {
            Kind = PlanKind.IndexRange,
            Index = index,
            Lower = lower,
            Upper = upper,
            Descending = descending,
            KeyConditions = keyConditions,
            IdConditions = idConditions,
            DocumentConditions = documentConditions,
            Dedup = multikey >= equalities,
            SortInMemory = orderServed ? null : spec.Orders,
            Describe = () => $"index '{index.Name}' ({string.Join(", ", index.Definition.Paths)}) on '{spec.Collection}'" +
                          (bounds.Count > 0 ? $", range {string.Join(" && ", bounds)}" : ", every entry") +
                          (descending ? ", descending" : "") +
                          Checks(keyConditions.Select(k => k.Item2).Concat(idConditions).Concat(documentConditions)) +
                          (multikey >= equalities ? "; duplicates removed" : "") +
                          (orderServed ? "" : $"; sorted in memory by {string.Join(", ", spec.Orders)}"),
        };
    }

    private static QueryPlan IdPlan(QuerySpec spec, List<QueryCondition> idRange, bool idOrder, IReadOnlyList<QueryOrder>? sortInMemory)
    {
        byte[]? lower = null;
        byte[]? upper = null;
        if (idRange.FirstOrDefault(c => c.IsLower) is { } low)
        {
            lower = low.Kind == ConditionKind.GreaterThan ? Concat(low.Value, [0]) : low.Value;
        }

        if (idRange.FirstOrDefault(c => c.IsUpper) is { } high)
        {
            upper = high.Kind switch
            {
                ConditionKind.LessThan => high.Value,
                ConditionKind.LessThanOrEqual => Concat(high.Value, [0]),
                _ => IndexKey.Successor(high.Value),
            };
        }

        var descending = idOrder && spec.Orders[0].Descending;
        return new QueryPlan
        {
            Kind = idRange.Count > 0 ? PlanKind.IdRange : PlanKind.Scan,
            Lower = lower,
            Upper = upper,
            Descending = descending,
            IdConditions = [.. spec.Conditions.Where(c => c.IsId)],
            DocumentConditions = [.. spec.Conditions.Where(c => !c.IsId)],
            SortInMemory = sortInMemory,
            Describe = () => (idRange.Count > 0 ? $"ids of '{spec.Collection}' with {string.Join(" && ", idRange.Select(c => c.Display))}" : $"every document of '{spec.Collection}'") +
                          " in id order" + (descending ? ", descending" : "") + Checks(spec.Conditions.Where(c => !c.IsId)) +
                          (sortInMemory == null ? "" : $"; sorted in memory by {string.Join(", ", sortInMemory)} (AllowScan)"),
        };
    }

    private static string Checks(IEnumerable<QueryCondition> conditions)
    {
        var list = conditions.ToList();
        return list.Count == 0 ? "" : "; checked per result: " + string.Join(" && ", list.Select(c => c.Display));
    }

    private static byte[] Concat(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        var result = new byte[a.Length + b.Length];
        a.CopyTo(result);
        b.CopyTo(result.AsSpan(a.Length));
        return result;
    }

    /// <summary>The refusal: what the query asks, why no index serves it, and the index that would.</summary>
    private static string Refusal(QuerySpec spec, IReadOnlyList<IndexRuntime> indexes, bool replica)
    {
        var equalityPaths = spec.Conditions.Where(c => !c.IsId && c.IsEquality).Select(c => c.Path!.Text).Distinct().ToList();
        var rangePath = spec.Conditions.FirstOrDefault(c => !c.IsId && c.IsRange && !equalityPaths.Contains(c.Path!.Text))?.Path!.Text;
        var orderPaths = spec.Orders.Where(o => !o.IsId).Select(o => o.Path!.Text).ToList();
        var paths = new List<string>(equalityPaths);
        if (rangePath != null)
        {
            paths.Add(rangePath);
        }

        var rangeAndOrder = rangePath != null && orderPaths.Count > 0 && orderPaths[0] != rangePath;
        if (!rangeAndOrder)
        {
            paths.AddRange(orderPaths.Where(p => !paths.Contains(p)));
        }

        var message = new StringBuilder();
        message.Append($"No ready index on collection '{spec.Collection}' serves {spec.Describe()}.");
        if (paths.Count > 0)
        {
            var name = Suggest(spec.Collection, paths);
            var literals = string.Join(", ", paths.Select(p => $"\"{p}\""));
            message.Append($" An index on ({string.Join(", ", paths)}) would: await store.EnsureIndexAsync(new IndexDefinition(\"{spec.Collection}\", \"{name}\", {literals})) (or IndexDefinition.For(...) on the members).");
        }

        if (rangeAndOrder)
        {
            message.Append(" One index serves a range on one path or an order on another, not both: sort in memory with AllowScan(), or order by the range's path.");
        }

        var building = indexes.Where(i => !i.Ready).Select(i => i.Name).ToList();
        if (building.Count > 0)
        {
            message.Append($" Still being built (not queryable until EnsureIndexAsync completes): {string.Join(", ", building)}.");
        }

        if (replica)
        {
            message.Append(" This store is a read replica, which writes no index: define it on the primary; queries here use it once the replica has applied " +
                "the transaction that made it ready (wait for it with DocumentStore.WaitForTransactionAsync).");
        }

        message.Append(" To read every document of the collection instead, call AllowScan() on the query.");
        return message.ToString();
    }

    private static string Suggest(string collection, List<string> paths)
    {
        var name = new StringBuilder(collection.Length + 16);
        foreach (var c in collection + "_by_" + string.Join("_", paths))
        {
            name.Append(char.IsAsciiLetterOrDigit(c) || c is '_' or '-' ? c : '_');
        }

        return name.Length > DocumentLimits.MaxIndexNameBytes ? name.ToString(0, DocumentLimits.MaxIndexNameBytes) : name.ToString();
    }
}
