namespace Voron.Documents;

/// <summary>
/// Names the collection a CLR type's documents go to. Without it, the collection is the type's
/// name (<c>User</c> for <c>class User</c>; a generic type's name without its arity), and
/// generated ids are <c>&lt;collection&gt;/&lt;n&gt;</c>.
/// </summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct, Inherited = false)]
public sealed class DocumentCollectionAttribute(string name) : Attribute
{
    /// <summary>The collection's name: 1 to 128 UTF-8 bytes, no '/' and no control characters.</summary>
    public string Name { get; } = name;
}
