import Foundation
import Service

exit(BadgeServiceCLI.run(Array(CommandLine.arguments.dropFirst())))
