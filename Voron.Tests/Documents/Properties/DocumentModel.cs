namespace Voron.Tests.Documents.Properties;

/// <summary>
/// What the store should hold: committed users by id with their versions, checked by
/// <see cref="DocumentModelTests"/> against loads, queries (LINQ to objects over this) and the
/// store's integrity check.
/// </summary>
internal sealed class DocumentModel
{
    private readonly Dictionary<string, int> _positions = new(StringComparer.Ordinal);

    public Dictionary<string, (User User, long Version)> Users { get; } = new(StringComparer.Ordinal);

    /// <summary>The ids of <see cref="Users"/>, for picking one at random in constant time.</summary>
    public List<string> Ids { get; } = [];

    /// <summary>Which committed document holds each email (the unique index's view).</summary>
    public Dictionary<string, string> EmailOwners { get; } = new(StringComparer.Ordinal);

    public void Put(string id, User user, long version)
    {
        if (Users.TryGetValue(id, out var old) && old.User.Email is { } oldEmail)
        {
            // Only while this document still owns it: a session that trades emails (a -> b, b -> a)
            // is applied put by put, and an earlier put may have given the old email to another id.
            Release(oldEmail, id);
        }
        else if (!Users.ContainsKey(id))
        {
            _positions[id] = Ids.Count;
            Ids.Add(id);
        }

        Users[id] = (user, version);
        if (user.Email != null)
        {
            EmailOwners[user.Email] = id;
        }
    }

    private void Release(string email, string id)
    {
        if (EmailOwners.TryGetValue(email, out var owner) && owner == id)
        {
            EmailOwners.Remove(email);
        }
    }

    public void Remove(string id)
    {
        if (!Users.Remove(id, out var old))
        {
            return;
        }

        if (old.User.Email is { } email)
        {
            Release(email, id);
        }

        var position = _positions[id];
        var last = Ids[^1];
        Ids[position] = last;
        _positions[last] = position;
        Ids.RemoveAt(Ids.Count - 1);
        _positions.Remove(id);
    }

    public long LastVersion { get; set; }

    /// <summary>Every id a committed document ever had: a generated id is never one of them (I5), even after a delete or a restart.</summary>
    public HashSet<string> CommittedIds { get; } = new(StringComparer.Ordinal);

    public static User Copy(User user) => new()
    {
        Id = user.Id,
        Name = user.Name,
        Email = user.Email,
        Age = user.Age,
        Active = user.Active,
        Tags = [.. user.Tags],
        Address = user.Address == null ? null : new Address { City = user.Address.City, Country = user.Address.Country },
        Status = user.Status,
    };

    public static bool Same(User a, User b) =>
        a.Id == b.Id && a.Name == b.Name && a.Email == b.Email && a.Age == b.Age && a.Active == b.Active &&
        a.Tags.SequenceEqual(b.Tags) && a.Address?.City == b.Address?.City && a.Address?.Country == b.Address?.Country && a.Status == b.Status;
}
