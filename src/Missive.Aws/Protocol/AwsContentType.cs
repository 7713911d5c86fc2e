using System;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Aws.Protocol;

/// <summary>A content type with its text, both made once per service.</summary>
internal sealed class AwsContentType
{
    public AwsContentType(string text)
    {
        Header = MediaTypeHeaderValue.Parse(text);
        Text = Header.ToString(); // what the header sends, so what is signed is what is sent
    }

    public MediaTypeHeaderValue Header { get; }

    public string Text { get; }
}
