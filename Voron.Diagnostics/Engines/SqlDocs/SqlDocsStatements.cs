
namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// The SQL a SQL engine of the <c>sqldocs</c> experiment runs, with the same parameters in each:
/// <c>$id</c>, <c>$city</c>, <c>$min</c>/<c>$max</c>, <c>$take</c>, <c>$first</c>/<c>$end</c>,
/// <c>$body</c>. Each returns the profile's JSON (<c>body</c>) as its first column, and the join
/// the profile's name as its third.
/// </summary>
internal sealed record SqlDocsStatements(string Lookup, string QueryEqual, string QueryRange, string Join, string InsertProfile)
{
    /// <summary>On a <c>voron_docs</c> table <c>profiles</c> with path columns name, city and age.</summary>
    public static SqlDocsStatements VoronDocs { get; } = new(
        Lookup: "SELECT body FROM profiles WHERE id = $id",
        QueryEqual: "SELECT body FROM profiles WHERE city = $city LIMIT $take",
        QueryRange: "SELECT body FROM profiles WHERE age >= $min AND age < $max ORDER BY age LIMIT $take",
        Join: "SELECT pu.id, pu.amount, p.name FROM purchases pu JOIN profiles p ON p.id = pu.profile_id WHERE pu.id >= $first AND pu.id < $end",
        InsertProfile: "INSERT INTO profiles(id, body) VALUES ($id, $body)");

    /// <summary>On a plain table <c>profiles(id TEXT PRIMARY KEY, body TEXT)</c> with indexes on json_extract of city and age.</summary>
    public static SqlDocsStatements JsonText { get; } = new(
        Lookup: "SELECT body FROM profiles WHERE id = $id",
        QueryEqual: "SELECT body FROM profiles WHERE json_extract(body, '$.city') = $city LIMIT $take",
        QueryRange: "SELECT body FROM profiles WHERE json_extract(body, '$.age') >= $min AND json_extract(body, '$.age') < $max " +
                    "ORDER BY json_extract(body, '$.age') LIMIT $take",
        Join: "SELECT pu.id, pu.amount, json_extract(p.body, '$.name') FROM purchases pu JOIN profiles p ON p.id = pu.profile_id " +
              "WHERE pu.id >= $first AND pu.id < $end",
        InsertProfile: "INSERT INTO profiles(id, body) VALUES ($id, $body)");
}
