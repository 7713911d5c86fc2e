namespace Missive;

/// <summary>
/// Marks an exception Missive throws of a framework type (a <see cref="System.TimeoutException"/>, an
/// <see cref="System.InvalidOperationException"/>) whose message it wrote and which holds no message content, so that a
/// log shows it whole (<see cref="ContentSafety.ForLog"/>).
/// </summary>
internal interface IContentFreeException
{
}
