import ArgumentParser

/// Where a remote's server is and how it is reached: the options `remote add` and `clone` share.
package struct RemoteServerOptions: ParsableArguments {
  @Option(help: "The server: http[s]://HOST[:PORT].") package var endpoint: String
  @Option(
    help:
      "The region requests are signed for (default: AWS_REGION, else the profile's region in ~/.aws/config, else us-east-1)."
  ) package var region: String?
  @Option(
    name: .customLong("ca-bundle"),
    help: ArgumentHelp(
      "A PEM file of certificate authorities to trust besides the system's (a private CA), kept with the remote.",
      discussion: "Else AWS_CA_BUNDLE. Verification is never turned off.", valueName: "file"),
    completion: .file()) package var caBundle: String?

  package init() {}
}
