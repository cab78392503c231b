using System.Text;

namespace Voron.Testing.Crash;

/// <summary>One change a transaction makes, applied to the store and to the model alike.</summary>
internal abstract record Change(string Tree)
{
    public static Change Put(string tree, string key, byte[] value) => new PutChange(tree, key, value);

    public static Change Delete(string tree, string key) => new DeleteChange(tree, key);

    public static Change DropTree(string tree) => new DropTreeChange(tree);

    public abstract void ApplyTo(WriteTransaction transaction);

    public abstract void ApplyTo(ModelState state);

    internal static byte[] KeyBytes(string key) => Encoding.UTF8.GetBytes(key);
}

internal sealed record PutChange(string Tree, string Key, byte[] Value) : Change(Tree)
{
    public override string ToString() => $"put {Tree}/{Key} ({Value.Length} bytes)";

    public override void ApplyTo(WriteTransaction transaction) => transaction.CreateTree(Tree).Put(KeyBytes(Key), Value);

    public override void ApplyTo(ModelState state) => state.TreeOrNew(Tree)[Key] = Value;
}

internal sealed record DeleteChange(string Tree, string Key) : Change(Tree)
{
    public override string ToString() => $"delete {Tree}/{Key}";

    public override void ApplyTo(WriteTransaction transaction) => transaction.CreateTree(Tree).Delete(KeyBytes(Key));

    public override void ApplyTo(ModelState state) => state.TreeOrNew(Tree).Remove(Key);
}

internal sealed record DropTreeChange(string Tree) : Change(Tree)
{
    public override string ToString() => $"drop tree {Tree}";

    public override void ApplyTo(WriteTransaction transaction) => transaction.DeleteTree(Tree);

    public override void ApplyTo(ModelState state) => state.Trees.Remove(Tree);
}
