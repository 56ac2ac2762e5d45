import CLI
import Foundation

exit(BadgeServiceCLI.run(Array(CommandLine.arguments.dropFirst()), serve: ServiceAssembly.serve))
